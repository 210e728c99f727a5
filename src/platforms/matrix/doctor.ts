// `baton doctor` for Matrix: is the login good (whoami, same account, same device), does the
// device still exist, has it published its encryption keys, and is its crypto store in the data
// dir? Plain fetch, no SDK. The token is never printed.
import { existsSync } from "node:fs";
import { BatonError } from "../../kernel/errors.js";
import type { MatrixAdapterConfig } from "./config.js";
import { call, resolveSession, sessionPath, whoami } from "./session.js";
import { cryptoStoreDir } from "./crypto-store.js";
import { persistentIndexedDbBytes } from "./persistent-idb.js";

export interface CredentialsReport {
  ok: boolean;
  lines: string[];
}

export interface DoctorEnv {
  dataDir: string;
  /** Instance name from config (`matrix`, `matrix_work`). */
  name: string;
}

export async function checkMatrixCredentials(config: MatrixAdapterConfig, env: DoctorEnv): Promise<CredentialsReport> {
  let session;
  try {
    session = await resolveSession(config, env.dataDir, env.name);
  } catch (error) {
    return { ok: false, lines: [`login: ${reason(error)}`] };
  }
  if (!session) return { ok: false, lines: [`not logged in yet: run \`baton matrix login\` (stores the token in ${sessionPath(env.dataDir, env.name)})`] };

  const lines: string[] = [];
  try {
    const me = await whoami(session.homeserver, session.access_token);
    if (me.user_id !== config.user_id) return { ok: false, lines: [`the token belongs to ${me.user_id}, not ${config.user_id}`] };
    if (me.device_id && me.device_id !== session.device_id)
      return { ok: false, lines: [`the token is for device ${me.device_id}, Baton expects ${session.device_id}: set device_id or run \`baton matrix login\``] };
    lines.push(`whoami: ok, ${me.user_id} on device ${session.device_id}`);
    const keys = await call<{ device_keys?: Record<string, Record<string, { keys?: Record<string, string> }>> }>(session.homeserver, "POST", "/_matrix/client/v3/keys/query", session.access_token, {
      device_keys: { [session.user_id]: [session.device_id] },
    });
    const published = keys.device_keys?.[session.user_id]?.[session.device_id]?.keys?.[`ed25519:${session.device_id}`];
    const store = cryptoStoreDir(env.dataDir, env.name, session.device_id);
    const hasStore = existsSync(store);
    if (published && hasStore)
      lines.push(`encryption: ready, device key ed25519 ${published} (compare it in Element when you verify the bot); store ${store} (${Math.ceil(persistentIndexedDbBytes(store) / 1024)} KB)`);
    else if (published)
      return {
        ok: false,
        lines: [
          ...lines,
          `encryption: the homeserver has keys for device ${session.device_id} but the crypto store ${store} is gone, so encrypted rooms cannot be read: run \`baton matrix login --new-device\``,
        ],
      };
    else lines.push(`encryption: device keys not published yet (Baton creates and uploads them at its first start${hasStore ? "" : `, into ${store}`})`);
    return { ok: true, lines };
  } catch (error) {
    return { ok: false, lines: [...lines, reason(error)] };
  }
}

function reason(error: unknown): string {
  return error instanceof BatonError ? error.userMessage : String(error);
}
