// The web chat's access token: from the config, else created once (random, 0600) in the data dir.
// The page gets it once in the URL (`/?token=…`) and trades it for an HttpOnly, SameSite=Strict
// cookie; every HTTP request and WebSocket upgrade must carry one or the other.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { constantTimeEqual } from "../../kernel/http.js";

export const TOKEN_FILE_NAME = "web-token";
const TOKEN_BYTES = 24;
const SECRET_FILE_MODE = 0o600;
const DATA_DIR_MODE = 0o700;
/** The cookie outlives browser restarts; the token itself never expires. */
const COOKIE_MAX_AGE_SECONDS = 30 * 24 * 3600;

/** Reads the token from the data dir, creating it on first start. */
export function loadOrCreateToken(dataDir: string, configured?: string): string {
  if (configured) return configured;
  const path = join(dataDir, TOKEN_FILE_NAME);
  if (existsSync(path)) {
    const stored = readFileSync(path, "utf8").trim();
    if (stored.length >= 16) return stored;
  }
  mkdirSync(dirname(path), { recursive: true, mode: DATA_DIR_MODE });
  const token = randomBytes(TOKEN_BYTES).toString("base64url");
  writeFileSync(path, `${token}\n`, { mode: SECRET_FILE_MODE });
  return token;
}

/** What a request may carry besides a bearer token (that one the shared bearer middleware checks). */
export interface RequestCredentials {
  cookieHeader?: string;
  /** The `token` query parameter. */
  queryToken?: string | null;
}

export class WebAuth {
  /** The cookie carries a value derived from the token, so the token itself never sits in the browser's cookie jar. */
  private readonly cookieValue: string;

  /** Cookies ignore ports: the name comes from the token, so two Baton instances on one host do not collide. */
  readonly cookieName: string;

  constructor(private readonly token: string) {
    this.cookieName = `baton_${createHash("sha256").update(token).digest("hex").slice(0, 12)}`;
    this.cookieValue = createHmac("sha256", token).update("baton web chat cookie v1").digest("base64url");
  }

  tokenMatches(candidate: string | null | undefined): boolean {
    return typeof candidate === "string" && constantTimeEqual(candidate, this.token);
  }

  isAuthorized(credentials: RequestCredentials): boolean {
    if (this.tokenMatches(credentials.queryToken)) return true;
    const cookie = parseCookies(credentials.cookieHeader).get(this.cookieName);
    return cookie !== undefined && constantTimeEqual(cookie, this.cookieValue);
  }

  setCookieHeader(): string {
    return `${this.cookieName}=${this.cookieValue}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_MAX_AGE_SECONDS}`;
  }
}

function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) cookies.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return cookies;
}
