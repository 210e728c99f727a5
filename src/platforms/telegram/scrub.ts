// Keeps the bot token out of logs and messages. Apart from errors.ts so that `baton doctor` can use
// it without loading grammy.

const TOKEN_IN_URL_PATTERN = /bot\d+:[A-Za-z0-9_-]+/g;
const BARE_TOKEN_PATTERN = /\b\d{5,}:[A-Za-z0-9_-]{30,}\b/g;

/** Removes the token (and anything shaped like one) from a text bound for a log or a chat. */
export function scrubToken(text: string, token?: string): string {
  const withoutToken = token ? text.split(token).join("<token>") : text;
  return withoutToken.replace(TOKEN_IN_URL_PATTERN, "bot<token>").replace(BARE_TOKEN_PATTERN, "<token>");
}
