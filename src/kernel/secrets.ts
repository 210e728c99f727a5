// The one secret scrubber: logs, briefs, error replies and agent stderr shown in a chat all pass
// through redactSecrets(). Over-redacting a harmless value is acceptable; letting a token through
// is not, so the patterns err on the wide side.

const R = "[REDACTED]";

/** Each rule replaces what it matches; order matters (whole blocks before fragments). */
const RULES: Array<[RegExp, string | ((...m: string[]) => string)]> = [
  // PEM private keys, including a block cut off before its END line.
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, "[REDACTED PRIVATE KEY]"],
  // Telegram (before the generic rules, which would take its first half) bot tokens: <bot id>:<35 chars>, also inside an API URL (`/bot123:abc…/getMe`).
  [/(?<![0-9])\d{6,12}:[A-Za-z0-9_-]{30,}/g, R],
  // Authorization headers.
  [/\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi, (_m, scheme: string, sp: string) => `${scheme}${sp}${R}`],
  // Slack bot/user/app tokens and webhooks.
  [/\bxox[abposre]-[A-Za-z0-9-]{8,}/g, R],
  [/\bxapp-[A-Za-z0-9-]{8,}/g, R],
  [/https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g, R],
  // Discord bot tokens: the bot's id in base64, a 6-character timestamp, an HMAC.
  [/\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g, R],
  // GitHub tokens.
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, R],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, R],
  // AWS access key ids (the secret key is caught by the key=value rule below).
  [/\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b/g, R],
  // OpenAI / Anthropic / generic sk- keys, Google API keys, npm tokens, JWTs.
  [/\bsk-[A-Za-z0-9_-]{16,}/g, R],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, R],
  [/\bnpm_[A-Za-z0-9]{30,}/g, R],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, R],
  // Credentials inside URLs: scheme://user:password@host.
  [/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@]{1,256}):[^\s@/]{1,256}@/gi, (_m, pre: string) => `${pre}:${R}@`],
  // Tokens in URL query strings.
  [/([?&](?:token|access_token|key|api_key|apikey|sig|signature)=)[^&\s"']+/gi, (_m, pre: string) => `${pre}${R}`],
  // curl-style credentials: -u user:password, --user user:password.
  [/(\s(?:-u|--user)\s+[^\s:]{1,256}:)\S+/g, (_m, pre: string) => `${pre}${R}`],
  // key=value and "key": "value" where the key names a secret.
  [
    // Bounded and anchored at a name's start: unbounded runs here were quadratic on long lines.
    /(["']?)((?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,40}(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|credential|private[_-]?key)[A-Za-z0-9_.-]{0,40})\1(\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;)}\]]+)/gi,
    (_m, q: string, key: string, sep: string, value: string) => {
      const quote = value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : "";
      return `${q}${key}${q}${sep}${quote}${R}${quote}`;
    },
  ],
];

/** Secret values known from the config (platform tokens): redacted wherever they appear. */
const knownSecrets = new Set<string>();
/** Shorter values would redact ordinary words. */
const MIN_KNOWN_SECRET_CHARS = 8;

export function registerSecretValues(values: Iterable<string | undefined>): void {
  for (const value of values) if (value && value.length >= MIN_KNOWN_SECRET_CHARS) knownSecrets.add(value);
}

/** Text with every recognised secret replaced by [REDACTED]. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of knownSecrets) if (out.includes(secret)) out = out.split(secret).join(R);
  for (const [re, rep] of RULES) out = out.replace(re, rep as (substring: string, ...args: string[]) => string);
  return out;
}

/** Text with the given known secret values (config tokens) and every recognised secret redacted. */
export function redactKnownSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join(R);
  return redactSecrets(out);
}
