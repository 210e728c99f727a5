// `baton doctor` for Telegram: is the token good (getMe), and does the bot's setup fit the config
// (webhook state, privacy mode for listen_all_in)? Plain fetch, no grammy, so doctor stays fast;
// the token is never printed.
import type { TelegramAdapterConfig } from "./config.js";
import { scrubToken } from "./scrub.js";
import { networkProblem } from "../../kernel/errors.js";

const DEFAULT_API_ROOT = "https://api.telegram.org";
/** Doctor gives up on a silent Bot API after this long. */
const DOCTOR_TIMEOUT_MS = 10_000;

export type TelegramDoctorConfig = Pick<TelegramAdapterConfig, "token"> & Partial<Pick<TelegramAdapterConfig, "api_root" | "mode" | "webhook" | "listen_all_in">>;

export interface CredentialsReport {
  ok: boolean;
  lines: string[];
  /** The platform could not be asked at all: the network, not the token. */
  unreachable?: boolean;
}

interface BotApiAnswer<T> {
  result?: T;
  problem?: string;
  unreachable?: boolean;
}

export async function checkTelegramCredentials(config: TelegramDoctorConfig): Promise<CredentialsReport> {
  const apiRoot = (config.api_root ?? DEFAULT_API_ROOT).replace(/\/+$/, "");
  const me = await callBotApi<{ username: string; id: number; can_read_all_group_messages?: boolean }>(apiRoot, config.token, "getMe");
  if (me.unreachable) return { ok: false, unreachable: true, lines: [`cannot reach ${apiRoot}: ${me.problem} — check the network (or api_root); the token was not checked`] };
  if (!me.result) return { ok: false, lines: [`token rejected: ${me.problem} — check the token from @BotFather`] };

  const lines = [`token: ok, @${me.result.username} (id ${me.result.id})`];
  let ok = true;
  if ((config.listen_all_in ?? []).length > 0 && me.result.can_read_all_group_messages === false) {
    lines.push("privacy mode is on: listen_all_in only sees commands, mentions and replies — turn it off with @BotFather /setprivacy");
  }
  const webhook = await callBotApi<{ url: string; last_error_message?: string }>(apiRoot, config.token, "getWebhookInfo");
  if (webhook.result) {
    const mode = config.mode ?? "polling";
    if (mode === "polling" && webhook.result.url) lines.push("a webhook is set; Baton removes it when it starts polling");
    if (mode === "webhook" && webhook.result.url !== config.webhook?.url) {
      lines.push(`webhook: Telegram has "${webhook.result.url || "none"}"; Baton sets ${config.webhook?.url ?? "(webhook.url missing)"} when it starts`);
      if (!config.webhook?.url) ok = false;
    }
    if (webhook.result.last_error_message) lines.push(`webhook: Telegram's last delivery error: ${webhook.result.last_error_message}`);
  }
  return { ok, lines };
}

async function callBotApi<T>(apiRoot: string, token: string, method: string): Promise<BotApiAnswer<T>> {
  try {
    const response = await fetch(`${apiRoot}/bot${token}/${method}`, { method: "POST", signal: AbortSignal.timeout(DOCTOR_TIMEOUT_MS) });
    const body = (await response.json()) as { ok: boolean; result?: T; error_code?: number; description?: string };
    if (body.ok) return { result: body.result };
    return { problem: `refused (${body.error_code}: ${scrubToken(body.description ?? "no description", token)})` };
  } catch (error) {
    return { unreachable: true, problem: scrubToken(networkProblem(error), token) };
  }
}
