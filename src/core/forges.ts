// Pull/merge requests through a code forge's API, for /pr. The forge is the one configured for the
// host name of the workspace's remote URL (`forges: { github.com: { kind: github, token } }`, the
// port ignored). GitHub and Gitea take `POST /repos/{owner}/{repo}/pulls` {title, head, base, body}
// and answer `html_url`; GitLab takes `POST /projects/:id/merge_requests` {source_branch,
// target_branch, title, description} and answers `web_url`.
import type { BatonConfig } from "../config/schema.js";
import { CommandError } from "../kernel/errors.js";

type Forge = BatonConfig["forges"][string];

const REQUEST_TIMEOUT_MS = 30_000;
/** GitHub refuses a body over 65,536 characters; the others take that much too. */
export const MAX_BODY_CHARS = 60_000;

export interface RemoteRepo {
  /** The host name, lower case, without a port. */
  host: string;
  /** `owner/repo` (GitLab: the project's full path, groups included). */
  path: string;
}

/**
 * Host and repository path of a remote URL: `https://host[:port]/owner/repo(.git)`,
 * `ssh://git@host[:port]/owner/repo.git`, or scp-like `git@host:owner/repo.git`. Undefined for a
 * local path or file:// (no forge there).
 */
export function parseRemote(url: string): RemoteRepo | undefined {
  const clean = (path: string) =>
    path
      .replace(/^\/+/, "")
      .replace(/\/+$/, "")
      .replace(/\.git$/, "");
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/.exec(url);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return { host: scp[1].toLowerCase(), path: clean(scp[2]) };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol === "file:" || !parsed.hostname) return undefined;
  return { host: parsed.hostname.toLowerCase().replace(/^\[|\]$/g, ""), path: clean(decodeURIComponent(parsed.pathname)) };
}

/** The forge configured for this host (keys compared without case and port). */
export function forgeFor(forges: BatonConfig["forges"], host: string): Forge | undefined {
  for (const [key, forge] of Object.entries(forges)) if (key.toLowerCase().replace(/:\d+$/, "") === host) return forge;
  return undefined;
}

export interface PullRequest {
  title: string;
  head: string;
  base: string;
  body: string;
}

/** Opens the pull/merge request; its web link, or a CommandError saying what the forge answered. */
export async function openPullRequest(forge: Forge, repo: RemoteRepo, request: PullRequest): Promise<string> {
  const { url, headers, payload, link } = requestFor(forge, repo, request);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "user-agent": "baton", ...headers },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new CommandError(`Could not reach ${forge.kind} at ${new URL(url).origin}: ${(error as Error).message}. The branch is pushed; open the request there by hand, or /pr again.`, {
      cause: error,
    });
  }
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    throw new CommandError(`${forge.kind} refused the ${forge.kind === "gitlab" ? "merge" : "pull"} request (HTTP ${response.status}${forgeMessage(answer)}). The branch is pushed.`);
  }
  const web = answer[link];
  if (typeof web !== "string") throw new CommandError(`${forge.kind} opened the request but answered no ${link}.`);
  return web;
}

function requestFor(forge: Forge, repo: RemoteRepo, request: PullRequest): { url: string; headers: Record<string, string>; payload: Record<string, string>; link: string } {
  const api = (forge.api_url ?? defaultApi(forge.kind, repo.host)).replace(/\/+$/, "");
  if (forge.kind === "gitlab") {
    return {
      url: `${api}/projects/${encodeURIComponent(repo.path)}/merge_requests`,
      headers: { "private-token": forge.token },
      payload: { source_branch: request.head, target_branch: request.base, title: request.title, description: request.body },
      link: "web_url",
    };
  }
  const [owner, name] = [repo.path.slice(0, repo.path.lastIndexOf("/")), repo.path.slice(repo.path.lastIndexOf("/") + 1)];
  return {
    url: `${api}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/pulls`,
    headers: { authorization: forge.kind === "github" ? `Bearer ${forge.token}` : `token ${forge.token}` },
    payload: { title: request.title, head: request.head, base: request.base, body: request.body },
    link: "html_url",
  };
}

function defaultApi(kind: Forge["kind"], host: string): string {
  if (kind === "github") return host === "github.com" ? "https://api.github.com" : `https://${host}/api/v3`;
  return kind === "gitlab" ? `https://${host}/api/v4` : `https://${host}/api/v1`;
}

/** The forge's own words: `message` (GitHub, GitLab, Gitea) and GitHub's `errors[].message`. */
function forgeMessage(answer: Record<string, unknown>): string {
  const errors = Array.isArray(answer.errors) ? answer.errors.map((e) => (e as { message?: string }).message).filter(Boolean) : [];
  const words = [typeof answer.message === "string" ? answer.message : JSON.stringify(answer.message ?? ""), ...errors].filter((w) => w && w !== '""');
  return words.length > 0 ? `: ${words.join("; ").slice(0, 300)}` : "";
}
