// `baton doctor` for Discord: is the token good (users/@me), is the MessageContent intent switched on
// for the application (its flags), is the bot in the configured servers, and the invite URL with
// exactly the permissions Baton needs. Plain fetch, no discord.js, so doctor stays fast; the token
// is never printed.
import { DISCORD_API_URL, type DiscordAdapterConfig } from "./config.js";
import { inviteUrl, MESSAGE_CONTENT_FIX, MESSAGE_CONTENT_FLAGS } from "./permissions.js";

/** Doctor gives up on a silent Discord after this long. */
const DOCTOR_TIMEOUT_MS = 10_000;
const API_VERSION = "v10";

export type DiscordDoctorConfig = Pick<DiscordAdapterConfig, "token"> & Partial<Pick<DiscordAdapterConfig, "application_id" | "guilds" | "api_url">>;

export interface CredentialsReport {
  ok: boolean;
  lines: string[];
}

interface Outcome<T> {
  body?: T;
  problem?: string;
}

export async function checkDiscordCredentials(config: DiscordDoctorConfig): Promise<CredentialsReport> {
  const call = <T>(path: string) => callDiscord<T>(config.api_url ?? DISCORD_API_URL, config.token, path);
  const me = await call<{ id: string; username: string }>("/users/@me");
  if (!me.body) return { ok: false, lines: [`token: ${me.problem} — copy the bot token again (Developer Portal → Bot → Reset Token)`] };

  const lines = [`token: ok, @${me.body.username} (id ${me.body.id})`];
  let ok = true;
  const app = await call<{ id: string; flags?: number }>("/applications/@me");
  if (!app.body) {
    ok = false;
    lines.push(`application: ${app.problem}`);
  } else {
    if (config.application_id && config.application_id !== app.body.id) {
      ok = false;
      lines.push(`application_id ${config.application_id} is not this token's application (${app.body.id}) — fix application_id or leave it out`);
    }
    if (((app.body.flags ?? 0) & MESSAGE_CONTENT_FLAGS) === 0) {
      ok = false;
      lines.push(`Message Content Intent: off, so Baton would not see what people write — ${MESSAGE_CONTENT_FIX}`);
    } else lines.push("Message Content Intent: on");
  }

  const applicationId = app.body?.id ?? config.application_id ?? me.body.id;
  const invite = inviteUrl(applicationId);
  if ((config.guilds ?? []).length > 0) {
    const joined = await call<Array<{ id: string; name: string }>>("/users/@me/guilds");
    if (joined.body) {
      const inside = new Set(joined.body.map((guild) => guild.id));
      const missing = config.guilds!.filter((id) => !inside.has(id));
      if (missing.length > 0) {
        ok = false;
        lines.push(`guilds: the bot is not in ${missing.join(", ")} — invite it there: ${invite}`);
      } else lines.push(`guilds: the bot is in all ${config.guilds!.length}`);
    } else lines.push(`guilds: ${joined.problem}`);
  }
  lines.push(`invite URL: ${invite}`);
  return { ok, lines };
}

async function callDiscord<T>(apiUrl: string, token: string, path: string): Promise<Outcome<T>> {
  try {
    const response = await fetch(`${apiUrl.replace(/\/+$/, "")}/${API_VERSION}${path}`, {
      headers: { Authorization: `Bot ${token}` },
      signal: AbortSignal.timeout(DOCTOR_TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => undefined)) as (T & { message?: string; code?: number }) | undefined;
    if (response.ok) return { body };
    if (response.status === 401) return { problem: "refused by Discord (401 Unauthorized)" };
    return { problem: `Discord answered HTTP ${response.status}${body?.message ? ` (${body.message})` : ""}` };
  } catch (error) {
    return { problem: `Discord could not be reached (${error instanceof Error ? error.message : String(error)})` };
  }
}
