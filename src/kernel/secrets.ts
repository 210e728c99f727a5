// The one secret scrubber: logs, briefs, error replies and agent stderr shown in a chat all pass
// through redactSecrets(). Over-redacting a harmless value is acceptable; letting a token through
// is not, so the patterns err on the wide side.
//
// Every pattern is linear on long lines: each starts at a literal or at the start of a run (a
// lookbehind), and every open-ended part is bounded, so no pattern retries a long scan at every
// position of a line (a 1 MB line without a newline is an ordinary agent output).

const R = "[REDACTED]";

type Replacer = string | ((...m: string[]) => string);

/** A secret value after a flag or a name: quoted (also JSON-escaped quotes), else up to a delimiter. */
const VALUE = String.raw`"[^"\n]{0,1024}"|'[^'\n]{0,1024}'|\\"(?:[^"\\\n]|\\[^"\n]){0,1024}\\"|[^\s,;)}\]"'\\]{1,1024}`;
/** A command-line argument: quoted, else a run that never swallows a JSON string's closing quote. */
const ARG = String.raw`"[^"\n]{0,1024}"|'[^'\n]{0,1024}'|[^\s"'\\]{1,1024}`;
/** Where a shell command's own arguments end, for the command-specific rules. */
const SAME_COMMAND = String.raw`[^\n|;&]{0,300}?`;

/** Keeps the quotes around a redacted value, so quoted JSON stays JSON. */
function keepQuotes(value: string): string {
  const quote = value.startsWith('\\"') ? '\\"' : value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : "";
  return `${quote}${R}${quote}`;
}

/** A 40-character run that looks like an AWS secret access key: base64 letters, mixed case and digits. */
function awsLike(run: string): string {
  const random = /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run) && !run.startsWith("/") && !run.endsWith("/");
  return random ? R : run;
}

/** Each rule replaces what it matches; order matters (whole blocks before fragments). */
const RULES: Array<[RegExp, Replacer]> = [
  // PEM and PGP private keys, whole, including a block cut off before its END line.
  [/-----BEGIN (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----|$)/g, "[REDACTED PRIVATE KEY]"],
  // Telegram (before the generic rules, which would take its first half) bot tokens: <bot id>:<35 chars>, also inside an API URL (`/bot123:abc…/getMe`).
  [/(?<![0-9])\d{6,12}:[A-Za-z0-9_-]{30,}/g, R],
  // Authorization headers.
  [/\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi, (_m, scheme, sp) => `${scheme}${sp}${R}`],
  // Slack bot/user/app tokens and webhooks.
  [/\bxox[abposre]-[A-Za-z0-9-]{8,}/g, R],
  [/\bxapp-[A-Za-z0-9-]{8,}/g, R],
  [/https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g, R],
  // Matrix access tokens (Synapse syt_, Matrix Authentication Service mct_).
  [/\b(?:syt|mct)_[A-Za-z0-9_]{16,}/g, R],
  // Discord bot tokens: the bot's id in base64, a 6-character timestamp, an HMAC.
  [/\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g, R],
  // GitHub and GitLab tokens (personal, deploy, runner, trigger, feed, … tokens).
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, R],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, R],
  [/\bgl(?:pat|dt|rt|ptt|cbt|imt|ft|soat|oas|agent|ww)-[A-Za-z0-9_-]{20,}/g, R],
  // AWS access key ids; the secret key after its name, written bare (`aws_secret_access_key <key>`).
  [/\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b/g, R],
  [/\b((?:aws_?)?secret_?access_?key)(\\?["']?\s*[:=]?\s*\\?["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi, (_m, name, sep) => `${name}${sep}${R}`],
  // OpenAI / Anthropic / generic sk- keys, Stripe, Hugging Face, Twilio, Google, npm, JWTs.
  [/\bsk-[A-Za-z0-9_-]{16,}/g, R],
  [/\b[rsp]k_(?:live|test)_[A-Za-z0-9]{10,}/g, R],
  [/\bwhsec_[A-Za-z0-9]{20,}/g, R],
  [/\bhf_[A-Za-z0-9]{30,}/g, R],
  [/\bSK[0-9a-fA-F]{32}\b/g, R],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, R],
  [/\bnpm_[A-Za-z0-9]{30,}/g, R],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, R],
  // Credentials inside URLs: scheme://user:password@host. The password runs to the last `@`
  // before the host, so `user:p@ss@host` loses all of `p@ss`.
  [/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@"'<>\\]{1,256}):[^\s/?#"'<>\\]{1,256}@/gi, (_m, pre) => `${pre}:${R}@`],
  // Tokens in URL query strings.
  [/([?&](?:token|access_token|key|api_key|apikey|sig|signature)=)[^&\s"'\\]+/gi, (_m, pre) => `${pre}${R}`],
  // curl-style credentials: -u user:password, --user user:password.
  [/(\s(?:-u|--user)\s+[^\s:"'\\]{1,256}:)[^\s"'\\]+/g, (_m, pre) => `${pre}${R}`],
  // Passwords given on a command line: mysql -pSECRET (attached only: `-p db` prompts), registry
  // logins and sshpass with -p, and any --password / --token / --secret flag with its value.
  [new RegExp(String.raw`(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb(?:-dump|-admin)?)\b${SAME_COMMAND}\s-p)(${ARG})`, "g"), (_m, pre) => `${pre}${R}`],
  [new RegExp(String.raw`(\b(?:docker|podman|nerdctl|buildah|skopeo|helm registry|oras)\s+login\b${SAME_COMMAND}\s-p(?:\s+|=)?)(?!-)(${ARG})`, "g"), (_m, pre) => `${pre}${R}`],
  [new RegExp(String.raw`(\bsshpass\b${SAME_COMMAND}\s-p\s*)(?!-)(${ARG})`, "g"), (_m, pre) => `${pre}${R}`],
  [new RegExp(String.raw`((?<![\w-])--?(?:[a-z]{1,20}-){0,3}(?:password|passwd|pwd|token|secret|api-?key)(?:\s+|=))(?!-)(${ARG})`, "gi"), (_m, pre) => `${pre}${R}`],
  // key=value and "key": "value" where the key names a secret (also inside JSON-escaped JSON);
  // a value an earlier rule already redacted is left alone (it would end up as "[REDACTED]]").
  [
    // Bounded and anchored at a name's start: unbounded runs here were quadratic on long lines.
    new RegExp(
      String.raw`((?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,40}(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|account[_-]?key|auth[_-]?key|credential|private[_-]?key)[A-Za-z0-9_.-]{0,40})(\\?["']?\s*[:=]\s*)(?!\[REDACTED)(${VALUE})`,
      "gi",
    ),
    (_m, key, sep, value) => `${key}${sep}${keepQuotes(value)}`,
  ],
  // A bare AWS secret access key: exactly 40 base64 characters of mixed case with digits (git
  // SHAs are lower-case hex, so they survive).
  [/(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g, awsLike],
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
