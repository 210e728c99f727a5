// Keeps the bot token out of logs and messages. Apart from errors.ts so that `baton doctor` can use
// it without loading grammy.
import { redactKnownSecrets } from "../../kernel/secrets.js";

/** Removes the token (and anything shaped like one) from a text bound for a log or a chat. */
export function scrubToken(text: string, token?: string): string {
  return redactKnownSecrets(text, [token]);
}
