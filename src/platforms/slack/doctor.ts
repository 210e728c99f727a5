// `baton doctor` for Slack: are the tokens good, and does the installed app have the scopes Baton
// needs (usergroups:read too when an access list names a Slack user group)? Plain fetch, no SDK, so
// doctor stays fast; tokens are never printed.
import type { SlackAdapterConfig } from "./config.js";
import type { DoctorEnv } from "../kit/descriptor.js";
import { REQUIRED_BOT_SCOPES, USER_GROUPS_SCOPE } from "./scopes.js";
import { networkProblem } from "../../kernel/errors.js";

const SLACK_API_URL = "https://slack.com/api/";
/** Doctor gives up on a silent Slack after this long. */
const DOCTOR_TIMEOUT_MS = 10_000;
const USER_GROUP_PREFIX = "slack:group:";
/** User groups named in the hint, at most. */
const GROUPS_SHOWN = 3;

export type SlackCredentialsConfig = Pick<SlackAdapterConfig, "bot_token"> & Partial<Pick<SlackAdapterConfig, "app_token" | "api_url" | "mode">>;

export interface CredentialsReport {
  ok: boolean;
  lines: string[];
  /** Slack could not be asked at all: the network, not the tokens. */
  unreachable?: boolean;
}

export async function checkSlackCredentials(config: SlackCredentialsConfig, env?: Pick<DoctorEnv, "accessEntries">): Promise<CredentialsReport> {
  const apiUrl = config.api_url ?? SLACK_API_URL;
  const lines: string[] = [];
  let ok = true;

  const bot = await callSlack(apiUrl, "auth.test", config.bot_token);
  if (bot.unreachable) return { ok: false, unreachable: true, lines: [`cannot reach ${apiUrl}: ${bot.problem} — check the network (or api_url); the tokens were not checked`] };
  if (!bot.body?.ok) {
    ok = false;
    lines.push(`bot token rejected: ${bot.problem ?? `refused (${bot.body?.error ?? "unknown error"})`} — check bot_token (xoxb-…)`);
  } else {
    lines.push(`bot token: ok, @${bot.body.user} in ${bot.body.team} (${bot.body.team_id})`);
    const granted = new Set(
      (bot.scopes ?? "")
        .split(",")
        .map((scope) => scope.trim())
        .filter(Boolean),
    );
    const missing = REQUIRED_BOT_SCOPES.filter((scope) => !granted.has(scope));
    if (missing.length > 0) lines.push(`scopes: missing ${missing.join(", ")} — add them (see docs/slack-manifest.yaml) and reinstall the app`);
    const groups = [...new Set((env?.accessEntries ?? []).filter((entry) => entry.startsWith(USER_GROUP_PREFIX)))];
    const groupsUnreadable = groups.length > 0 && !granted.has(USER_GROUPS_SCOPE);
    if (groupsUnreadable) lines.push(userGroupsScopeHint(groups));
    if (missing.length > 0 || groupsUnreadable) ok = false;
    else lines.push("scopes: all granted");
  }

  if ((config.mode ?? "socket") === "socket") {
    if (!config.app_token) {
      ok = false;
      lines.push("app token: missing — Socket Mode needs app_token (xapp-…, scope connections:write)");
    } else {
      // apps.connections.open only hands out a WebSocket URL; not connecting to it is harmless.
      const app = await callSlack(apiUrl, "apps.connections.open", config.app_token);
      if (app.body?.ok) lines.push("app token: ok, Socket Mode available");
      else {
        ok = false;
        lines.push(`app token: ${app.problem ?? `refused (${app.body?.error ?? "unknown error"})`} — check app_token (xapp-…, scope connections:write) and that Socket Mode is enabled`);
      }
    }
  }
  return { ok, lines };
}

/** The access lists name Slack user groups, and Slack will not say who is in them. */
function userGroupsScopeHint(groups: string[]): string {
  const named = groups.length > GROUPS_SHOWN ? `${groups.slice(0, GROUPS_SHOWN).join(", ")} and ${groups.length - GROUPS_SHOWN} more` : groups.join(", ");
  return `scopes: missing ${USER_GROUPS_SCOPE}, which your access lists need to see who is in ${named}: until the app has it, no one gets in through a user group — add ${USER_GROUPS_SCOPE} under OAuth & Permissions → Scopes → Bot Token Scopes at api.slack.com/apps and reinstall the app`;
}

interface SlackCallOutcome {
  body?: { ok?: boolean; error?: string; user?: string; team?: string; team_id?: string };
  scopes?: string;
  problem?: string;
  /** Set when Slack could not be asked at all. */
  unreachable?: boolean;
}

async function callSlack(apiUrl: string, method: string, token: string): Promise<SlackCallOutcome> {
  try {
    const response = await fetch(new URL(method, apiUrl), {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/x-www-form-urlencoded" },
      signal: AbortSignal.timeout(DOCTOR_TIMEOUT_MS),
    });
    if (!response.ok) return { problem: `Slack answered HTTP ${response.status}` };
    return { body: (await response.json()) as SlackCallOutcome["body"], scopes: response.headers.get("x-oauth-scopes") ?? undefined };
  } catch (error) {
    return { unreachable: true, problem: networkProblem(error) };
  }
}
