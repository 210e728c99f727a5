// The bot's Matrix login, kept in the data dir: `matrix/<instance>/session.json` (0600) holds the
// access token and device id a password login produced, so every start reuses the same device —
// and with it the same encryption keys (`matrix/<instance>/crypto/`). Plain fetch, no SDK, so
// `baton matrix login` and `baton doctor` stay light. With store.url the login is kept in the shared
// snapshots too, and the one there wins: every instance that leads uses the same device.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PlatformError } from "../../kernel/errors.js";
import type { PlatformSnapshots } from "../contract.js";
import type { MatrixAdapterConfig } from "./config.js";

/** A silent homeserver is given up on after this long (login, whoami). */
const REQUEST_TIMEOUT_MS = 15_000;

export interface MatrixSession {
  homeserver: string;
  user_id: string;
  access_token: string;
  device_id: string;
}

export function matrixInstanceDir(dataDir: string, instance: string): string {
  return join(dataDir, "matrix", instance);
}

export function sessionPath(dataDir: string, instance: string): string {
  return join(matrixInstanceDir(dataDir, instance), "session.json");
}

export function readSession(dataDir: string, instance: string): MatrixSession | undefined {
  const path = sessionPath(dataDir, instance);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, "utf8")) as MatrixSession;
}

function writeSession(dataDir: string, instance: string, session: MatrixSession): void {
  const dir = matrixInstanceDir(dataDir, instance);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = sessionPath(dataDir, instance);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

/** Where the login of Matrix instance `instance` is kept in the shared snapshots. */
function sharedSessionKey(instance: string): string {
  return `matrix:${instance}:session`;
}

/** The login the last leader stored for this account, or undefined (none, or another account's). Reads only. */
export async function readSharedSession(snapshots: Pick<PlatformSnapshots, "load">, config: MatrixAdapterConfig, instance: string): Promise<MatrixSession | undefined> {
  const stored = await snapshots.load(sharedSessionKey(instance));
  if (!stored) return undefined;
  const session = JSON.parse(stored.snapshot.toString("utf8")) as MatrixSession;
  return session.user_id === config.user_id && session.homeserver === config.homeserver ? session : undefined;
}

/**
 * The credentials to start with when several instances share the snapshots: the shared login (it
 * wins, and is copied to this data dir), else this data dir's or a new one, which becomes the shared one.
 */
export async function resolveSharedSession(snapshots: PlatformSnapshots, config: MatrixAdapterConfig, dataDir: string, instance: string): Promise<MatrixSession> {
  const shared = await readSharedSession(snapshots, config, instance);
  if (shared) {
    writeSession(dataDir, instance, shared);
    return shared;
  }
  const session = (await resolveSession(config, dataDir, instance)) ?? (await loginWithPassword(config, dataDir, instance));
  snapshots.replace(sharedSessionKey(instance), 0, Buffer.from(JSON.stringify(session)));
  return session;
}

/**
 * The credentials to start with: the stored login when it is for this account and homeserver,
 * else the configured access token (its device asked from the homeserver when not configured).
 * Undefined when only a password is configured and nobody has logged in yet.
 */
export async function resolveSession(config: MatrixAdapterConfig, dataDir: string, instance: string): Promise<MatrixSession | undefined> {
  const stored = readSession(dataDir, instance);
  if (stored && stored.user_id === config.user_id && stored.homeserver === config.homeserver) return stored;
  if (!config.access_token) return undefined;
  const device_id = config.device_id ?? (await whoami(config.homeserver, config.access_token)).device_id;
  if (!device_id) throw new PlatformError("The Matrix access token has no device: set platforms.matrix.device_id, or log in with `baton matrix login`.", { reason: "refused" });
  return { homeserver: config.homeserver, user_id: config.user_id, access_token: config.access_token, device_id };
}

/** Logs in with the configured password (keeping the stored device when there is one) and stores the session. */
export async function loginWithPassword(config: MatrixAdapterConfig, dataDir: string, instance: string, options: { reuseDevice: boolean } = { reuseDevice: true }): Promise<MatrixSession> {
  if (!config.password) throw new PlatformError("No password configured: set platforms.matrix.password (or pass --password-stdin) to log in.", { reason: "refused" });
  const previous = options.reuseDevice ? readSession(dataDir, instance) : undefined;
  const device_id = config.device_id ?? (previous?.user_id === config.user_id ? previous.device_id : undefined);
  const answer = await call<{ user_id: string; access_token: string; device_id: string }>(config.homeserver, "POST", "/_matrix/client/v3/login", undefined, {
    type: "m.login.password",
    identifier: { type: "m.id.user", user: config.user_id },
    password: config.password,
    initial_device_display_name: config.device_name,
    ...(device_id ? { device_id } : {}),
  });
  if (answer.user_id !== config.user_id) throw new PlatformError(`The homeserver logged in ${answer.user_id}, not ${config.user_id}: fix platforms.matrix.user_id.`, { reason: "refused" });
  const session = { homeserver: config.homeserver, user_id: answer.user_id, access_token: answer.access_token, device_id: answer.device_id };
  writeSession(dataDir, instance, session);
  return session;
}

export function whoami(homeserver: string, accessToken: string): Promise<{ user_id: string; device_id?: string }> {
  return call(homeserver, "GET", "/_matrix/client/v3/account/whoami", accessToken);
}

/** One client-server API call; errors name the Matrix errcode and never the token. */
export async function call<T>(homeserver: string, method: string, path: string, accessToken?: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(new URL(path, homeserver.replace(/\/*$/, "/")), {
      method,
      headers: { ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}), ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new PlatformError(`The Matrix homeserver ${homeserver} could not be reached.`, { reason: "network", detail: (error as Error).message, cause: error });
  }
  const answer = (await response.json().catch(() => ({}))) as T & { errcode?: string; error?: string; retry_after_ms?: number };
  if (response.ok) return answer;
  const what = `${response.status} ${answer.errcode ?? ""} ${answer.error ?? ""}`.trim();
  throw new PlatformError(`The Matrix homeserver refused ${method} ${path}: ${what}`, { reason: "refused", retryAfterMs: answer.retry_after_ms });
}
