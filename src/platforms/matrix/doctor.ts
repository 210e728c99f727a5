// `baton doctor` for Matrix: is the login good (whoami, same account, same device), does the
// device still exist, has it published its encryption keys, and is its crypto store in the data
// dir (or, with store.url, in the database)? Plain fetch, no SDK. The token is never printed.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { BatonError } from "../../kernel/errors.js";
import type { PlatformSnapshots } from "../contract.js";
import type { MatrixAdapterConfig } from "./config.js";
import { call, readSharedSession, resolveSession, sessionPath, whoami, type MatrixSession } from "./session.js";
import { cryptoStoreDir, cryptoStoreKey } from "./crypto-store.js";

export interface CredentialsReport {
  ok: boolean;
  lines: string[];
}

export interface DoctorEnv {
  dataDir: string;
  /** Instance name from config (`matrix`, `matrix_work`). */
  name: string;
  /** With store.url: the shared snapshots, where the login and the crypto store the leader uses are. */
  snapshots?: Pick<PlatformSnapshots, "load">;
}

export async function checkMatrixCredentials(config: MatrixAdapterConfig, env: DoctorEnv): Promise<CredentialsReport> {
  let session;
  try {
    session = (env.snapshots && (await readSharedSession(env.snapshots, config, env.name))) || (await resolveSession(config, env.dataDir, env.name));
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
    const store = await cryptoStoreOf(session, env);
    const hasStore = store.bytes !== undefined;
    if (published && hasStore)
      lines.push(`encryption: ready, device key ed25519 ${published} (compare it in Element when you verify the bot); store ${store.where} (${Math.ceil(store.bytes! / 1024)} KB)`);
    else if (published)
      return {
        ok: false,
        lines: [
          ...lines,
          `encryption: the homeserver has keys for device ${session.device_id} but the crypto store ${store.where} is gone, so encrypted rooms cannot be read: run \`baton matrix login --new-device\``,
        ],
      };
    else lines.push(`encryption: device keys not published yet (Baton creates and uploads them at its first start${hasStore ? "" : `, keeping them ${store.where}`})`);
    return { ok: true, lines };
  } catch (error) {
    return { ok: false, lines: [...lines, reason(error)] };
  }
}

/** Where the device's crypto store is (the database's copy wins, as at start) and its size; no size when there is none. */
async function cryptoStoreOf(session: MatrixSession, env: DoctorEnv): Promise<{ where: string; bytes?: number }> {
  const shared = await env.snapshots?.load(cryptoStoreKey(env.name, session));
  if (shared) return { where: "in the database", bytes: [shared.snapshot, ...shared.records].reduce((sum, b) => sum + b.length, 0) };
  if (env.snapshots) return { where: "in the database" };
  const dir = cryptoStoreDir(env.dataDir, env.name, session.device_id);
  return { where: `in ${dir}`, bytes: existsSync(dir) ? readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0) : undefined };
}

function reason(error: unknown): string {
  return error instanceof BatonError ? error.userMessage : String(error);
}
