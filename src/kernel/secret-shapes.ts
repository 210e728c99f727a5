// Secret *shapes*: what a token, key or password looks like, for text Baton did not write itself
// (agent output, platform errors, transcripts in briefs). Baton's own words never pass through
// here (secrets.ts keeps them apart), so a rule may err on the wide side for outside text, but a
// README or a transcript must keep its words: values that read as prose, numbers, placeholders
// (`${TOKEN}`, `…`, `<token>`) and null/true/false are left alone.
//
// Every pattern is linear on long lines: each starts at a literal or at the start of a run (a
// lookbehind), and every open-ended part is bounded, so no pattern retries a long scan at every
// position of a line (a 1 MB line without a newline is an ordinary agent output).
import { PREFIXED_TOKENS } from "./secret-prefixes.js";

export const REDACTED = "[REDACTED]";
const R = REDACTED;

type Replacer = string | ((...m: string[]) => string);

/** A secret value after a flag or a name: quoted (also JSON-escaped quotes), else up to a delimiter. */
const VALUE = String.raw`"[^"\n]{0,1024}"|'[^'\n]{0,1024}'|\\"(?:[^"\\\n]|\\[^"\n]){0,1024}\\"|[^\s,;)}\]"'\\\`]{1,1024}`;
/** A command-line argument: quoted, else a run that never swallows a JSON string's closing quote. */
const ARG = String.raw`"[^"\n]{0,1024}"|'[^'\n]{0,1024}'|[^\s"'\\]{1,1024}`;
/** Where a shell command's own arguments end, for the command-specific rules. */
const SAME_COMMAND = String.raw`[^\n|;&]{0,300}?`;
/** Numbers up to this many digits are counts, ports and limits (`"input_tokens": 12`), not secrets. */
const MAX_PLAIN_NUMBER_DIGITS = 10;

/** What stands before `PASS=` / `PASSWORD=` in an environment variable named for a password (SSHPASS, PGPASSWORD, DB_PASS). */
const ENV_PASSWORD_NAME = /(?:^|[^A-Za-z0-9_])(?:[A-Z0-9]{1,30}_){0,4}(?:SSH|PG|DB|SMTP|MYSQL|REDIS|FTP|MAIL|LDAP)?$/;
const MAX_ENV_NAME_CHARS = 160;

/** Keeps the quotes around a redacted value, so quoted JSON stays JSON. */
function keepQuotes(value: string): string {
  const quote = value.startsWith('\\"') ? '\\"' : value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : "";
  return `${quote}${R}${quote}`;
}

function unquote(value: string): string {
  return value.replace(/^\\?["']|\\?["']$/g, "");
}

/**
 * Whether the value after a secret's name could be the secret: not a placeholder, a plain
 * number, a literal, an opening bracket, or a word of a sentence (`a bearer token: use it …`,
 * `check the bot token: HTTP 401`): an unquoted run of letters with more words after it.
 */
function couldBeSecret(value: string, after: string): boolean {
  const bare = unquote(value);
  if (!bare) return false;
  if (isPlaceholder(bare)) return false;
  if (new RegExp(String.raw`^\d{1,${MAX_PLAIN_NUMBER_DIGITS}}$`).test(bare)) return false;
  if (/^(?:null|true|false|none|undefined|redacted)$/i.test(bare)) return false;
  const quoted = bare !== value;
  if (!quoted && /^[A-Za-z]+$/.test(bare) && /^ +[^\s#]/.test(after)) return false;
  return true;
}

/** `${TOKEN}`, `<token>`, `%s`, `{{token}}`, `…`, `***`, `xxx`: a place for a secret, not one. */
function isPlaceholder(bare: string): boolean {
  return /^(?:\$\{?|<|%|\{|\[|`|\.\.\.|\*{3,}|x{3,}$|X{3,}$)/.test(bare) || bare.includes("…");
}

/** An Authorization value, not a word (`Basic Information`, `Token authentication`). */
function credentialLike(run: string): boolean {
  return /[0-9=+/_~-]/.test(run) || run.length >= 24;
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
  // Webhook URLs whose path is the credential: Slack, Discord (also ptb./canary., discordapp.com, /api/v10/).
  [/https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g, R],
  [/https:\/\/(?:(?:ptb|canary)\.)?discord(?:app)?\.com\/api(?:\/v\d{1,2})?\/webhooks\/\d{5,30}\/[A-Za-z0-9_-]{20,200}/g, R],
  // Authorization headers.
  [/\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})/gi, (m, scheme, sp, run) => (credentialLike(run) ? `${scheme}${sp}${R}` : m)],
  // Tokens with a known prefix (GitHub, GitLab, Slack, Stripe, SendGrid, …): see secret-prefixes.ts.
  // One alternation for all of them behind one word-start check: one scan of the text instead of
  // one per service (measured on the README and a transcript: 0.7 ms against 2.7 ms for separate
  // patterns, 1.8 ms with a \b in front of each alternative).
  [new RegExp(`(?<![A-Za-z0-9_])(?:${PREFIXED_TOKENS.map((re) => re.source.replace(/^\\b/, "")).join("|")})`, "g"), R],
  // Discord bot tokens: the bot's id in base64, a 6-character timestamp, an HMAC.
  [/\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g, R],
  // AWS: the secret key after its name, written bare (`aws_secret_access_key <key>`).
  [/\b((?:aws_?)?secret_?access_?key)(\\?["']?\s*[:=]?\s*\\?["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi, (_m, name, sep) => `${name}${sep}${R}`],
  // JWTs.
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, R],
  // Credentials inside URLs: scheme://user:password@host, the user name possibly empty
  // (`redis://:password@host`). The password runs to the last `@` before the host, so
  // `user:p@ss@host` loses all of `p@ss`.
  // A placeholder (`postgres://baton:${PG_PASSWORD}@db`) is left as it is.
  [/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@"'<>\\]{0,256}):([^\s/?#"'<>\\]{1,256})@/gi, (m, pre, password) => (isPlaceholder(password) ? m : `${pre}:${R}@`)],
  // Tokens in URL query strings.
  [/([?&](?:token|access_token|key|api_key|apikey|sig|signature)=)([^&\s"'\\]+)/gi, (m, pre, value) => (couldBeSecret(value, "") ? `${pre}${R}` : m)],
  // curl-style credentials: -u user:password, --user user:password, also quoted (`-u 'admin:pw'`).
  [/(\s(?:-u|--user)(?:\s+|=))(["'])([^"'\n:]{0,256}):[^"'\n]{1,1024}\2/g, (_m, pre, quote, user) => `${pre}${quote}${user}:${R}${quote}`],
  [/(\s(?:-u|--user)(?:\s+|=)[^\s:"'\\]{1,256}:)[^\s"'\\]+/g, (_m, pre) => `${pre}${R}`],
  // Passwords given on a command line: mysql -pSECRET (attached only: `-p db` prompts), registry
  // logins and sshpass with -p, and any --password / --token / --secret flag with its value.
  [new RegExp(String.raw`(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb(?:-dump|-admin)?)\b${SAME_COMMAND}\s-p)(${ARG})`, "g"), (_m, pre) => `${pre}${R}`],
  [new RegExp(String.raw`(\b(?:docker|podman|nerdctl|buildah|skopeo|helm registry|oras)\s+login\b${SAME_COMMAND}\s-p(?:\s+|=)?)(?!-)(${ARG})`, "g"), (_m, pre) => `${pre}${R}`],
  [new RegExp(String.raw`(\bsshpass\b${SAME_COMMAND}\s-p\s*)(?!-)(${ARG})`, "g"), (_m, pre) => `${pre}${R}`],
  [new RegExp(String.raw`((?<![\w-])--?(?:[a-z]{1,20}-){0,3}(?:password|passwd|pwd|token|secret|api-?key)(?:\s+|=))(?!-)(${ARG})`, "gi"), (_m, pre) => `${pre}${R}`],
  // Environment variables named for a password: SSHPASS=…, PGPASSWORD=…, DB_PASS=….
  // The pattern starts at the literal PASS (a scan for a name's start at every word was the
  // costliest rule on prose); the name before it is checked in the replacer.
  [
    new RegExp(`PASS(?:WORD)?=(${ARG})`, "g"),
    (m, value, offset, whole) =>
      ENV_PASSWORD_NAME.test(whole.slice(Math.max(0, Number(offset) - MAX_ENV_NAME_CHARS), Number(offset))) && couldBeSecret(value, "") ? m.slice(0, m.length - value.length) + keepQuotes(value) : m,
  ],
  // key=value and "key": "value" where the key names a secret (also inside JSON-escaped JSON);
  // a value an earlier rule already redacted is left alone (it would end up as "[REDACTED]]").
  [
    // Bounded and anchored at a name's start: unbounded runs here were quadratic on long lines.
    new RegExp(
      String.raw`((?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,40}(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|account[_-]?key|auth[_-]?key|credential|private[_-]?key)[A-Za-z0-9_.-]{0,40})(\\?["']?\s*[:=]\s*)(?!\[REDACTED)(${VALUE})`,
      "gi",
    ),
    (m, key, sep, value, offset, whole) => {
      const end = Number(offset) + m.length;
      return couldBeSecret(value, whole.slice(end, end + 2)) ? `${key}${sep}${keepQuotes(value)}` : m;
    },
  ],
  // A bare AWS secret access key: exactly 40 base64 characters of mixed case with digits (git
  // SHAs are lower-case hex, so they survive).
  [/(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g, awsLike],
];

/** Text with every secret shape replaced by [REDACTED]. */
export function redactSecretShapes(text: string): string {
  let out = text;
  for (const [re, rep] of RULES) out = out.replace(re, rep as (substring: string, ...args: string[]) => string);
  return out;
}
