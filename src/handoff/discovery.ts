// How `baton mcp` finds the running daemon: the daemon writes its MCP URL to <dataDir>/mcp.json
// and keeps the bearer token in <dataDir>/mcp-token, both 0600, so only this OS user can reach it
// and no secret ever lands in an agent's or a project's config.
import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "../kernel/process.js";
import { registerSecretValues } from "../kernel/secrets.js";
import { REMOTE_ENDPOINT_FILE, REMOTE_TOKEN_FILE, type RemoteEndpoint } from "../agents/machines/remote-handover.js";
import { readEndpointFile, removeEndpointFile, writeEndpointFile, type Endpoint } from "../kernel/endpoint.js";

const SECRET_FILE_MODE = 0o600;
const TOKEN_BYTES = 32;

export type McpEndpoint = Endpoint;

export function tokenPath(dataDir: string): string {
  return join(dataDir, "mcp-token");
}

export function endpointPath(dataDir: string): string {
  return join(dataDir, "mcp.json");
}

/** The token from the data dir, created on first use; kept across restarts so clients need no update. */
export function ensureToken(dataDir: string): string {
  const existing = readToken(dataDir);
  if (existing) {
    chmodSync(tokenPath(dataDir), SECRET_FILE_MODE);
    registerSecretValues([existing]);
    return existing;
  }
  const token = randomBytes(TOKEN_BYTES).toString("base64url");
  writeFileSync(tokenPath(dataDir), `${token}\n`, { mode: SECRET_FILE_MODE });
  registerSecretValues([token]);
  return token;
}

export function readToken(dataDir: string): string | undefined {
  try {
    return readFileSync(tokenPath(dataDir), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

export function writeEndpoint(dataDir: string, endpoint: McpEndpoint): void {
  writeEndpointFile(endpointPath(dataDir), endpoint);
}

export function readEndpoint(dataDir: string): McpEndpoint | undefined {
  return readEndpointFile(endpointPath(dataDir));
}

/** Removes the endpoint file if it is still ours (a newer daemon may have replaced it). */
export function removeEndpoint(dataDir: string, pid: number): void {
  removeEndpointFile(endpointPath(dataDir), pid);
}

/**
 * The daemon this data dir reaches (its URL and token): one running here that published them, else
 * a daemon on another machine that published a tunnel or listener here over SSH (its liveness is
 * learnt by connecting).
 */
export function findDaemon(dataDir: string): { url: string; token: string } | undefined {
  const endpoint = readEndpoint(dataDir);
  const token = readToken(dataDir);
  if (endpoint && token && isProcessAlive(endpoint.pid)) return { url: endpoint.url, token };
  return readRemoteEndpoint(dataDir);
}

function readRemoteEndpoint(dataDir: string): { url: string; token: string } | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, REMOTE_ENDPOINT_FILE), "utf8")) as Partial<RemoteEndpoint>;
    const token = readFileSync(join(dataDir, REMOTE_TOKEN_FILE), "utf8").trim();
    return typeof parsed.url === "string" && token ? { url: parsed.url, token } : undefined;
  } catch {
    return undefined;
  }
}
