// A running daemon publishes where it listens in a small JSON file in its data dir (0600), so the
// CLI of the same OS user finds it: `baton mcp` (mcp.json), `baton status` / `reload` (ops.json).
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isProcessAlive } from "./process.js";

const ENDPOINT_FILE_MODE = 0o600;

export interface Endpoint {
  url: string;
  pid: number;
  /** A bearer token the listener requires (the ops listener with ops.token); the file is 0600. */
  token?: string;
}

export function writeEndpointFile(path: string, endpoint: Endpoint): void {
  writeFileSync(path, `${JSON.stringify(endpoint)}\n`, { mode: ENDPOINT_FILE_MODE });
  chmodSync(path, ENDPOINT_FILE_MODE);
}

export function readEndpointFile(path: string): Endpoint | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<Endpoint>;
    if (typeof parsed.url !== "string" || typeof parsed.pid !== "number") return undefined;
    return typeof parsed.token === "string" ? { url: parsed.url, pid: parsed.pid, token: parsed.token } : { url: parsed.url, pid: parsed.pid };
  } catch {
    return undefined;
  }
}

/** Removes the file if it is still ours (a newer daemon may have replaced it). */
export function removeEndpointFile(path: string, pid: number): void {
  if (readEndpointFile(path)?.pid === pid) rmSync(path, { force: true });
}

/** The endpoint, if its daemon still runs. */
export function liveEndpoint(path: string): Endpoint | undefined {
  const endpoint = readEndpointFile(path);
  return endpoint && isProcessAlive(endpoint.pid) ? endpoint : undefined;
}
