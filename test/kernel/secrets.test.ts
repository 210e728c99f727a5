// The one secret scrubber: every shape it must catch, the text it must leave alone, and lines long
// enough that a quadratic pattern would never finish.
import { describe, expect, it } from "vitest";
import { forgetSecretValues, knownSecretCount, redactKnownValues, redactSecrets, registerSecretValues, urlCredentials, urlForDisplay } from "../../src/kernel/secrets.js";

// Built by concatenation so this file itself holds no token-shaped literal.
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY";
const JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
const PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "BKcwggSjAgEAAoIBAQC7\nq8Zx0L2mN4bT7yP1kD9sW3fE6gH5jR2cV8nU0";
const PGP_BODY = "lQOYBF5vZ3kBCAC7yQk2m8Fz0b1c" + "Xq9Lr4Tn6Wp2Yd8Ks3Hj5Gf7Vb1Nm0\n=Qx3T";

/** [shape, text containing the secret, the secret itself (must vanish), context that must stay]. */
const MUST_REDACT: Array<[string, string, string, string?]> = [
  ["AWS secret key, key=value", `aws_secret_access_key = ${AWS_SECRET}`, AWS_SECRET, "aws_secret_access_key"],
  ["AWS secret key, env", `export AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`, AWS_SECRET, "AWS_SECRET_ACCESS_KEY"],
  ["AWS secret key, bare after its name", `aws configure set aws_secret_access_key ${AWS_SECRET} --profile dev`, AWS_SECRET, "--profile dev"],
  ["AWS secret key, bare", `keys: AKIA-less ${AWS_SECRET} end`, AWS_SECRET, "end"],
  ["AWS access key id", `id ${"AKIA" + "IOSFODNN7EXAMPLE"}`, "AKIA" + "IOSFODNN7EXAMPLE"],
  ["GitLab PAT", `token ${"glpat-" + "xR4nd0mT0k3nV4lu3abcd"} here`, "glpat-" + "xR4nd0mT0k3nV4lu3abcd", "here"],
  ["GitLab deploy token", `${"gldt-" + "Ab12Cd34Ef56Gh78Ij90Kl"}`, "gldt-" + "Ab12Cd34Ef56Gh78Ij90Kl"],
  ["Stripe live secret key", `stripe ${"sk_live_" + "51HxYzAbCdEfGhIjKlMnOpQr"}`, "sk_live_" + "51HxYzAbCdEfGhIjKlMnOpQr"],
  ["Stripe restricted key", `stripe ${"rk_live_" + "51HxYzAbCdEfGhIjKlMnOpQr"}`, "rk_live_" + "51HxYzAbCdEfGhIjKlMnOpQr"],
  ["Stripe test key", `stripe ${"sk_test_" + "51HxYzAbCdEfGhIjKlMnOpQr"}`, "sk_test_" + "51HxYzAbCdEfGhIjKlMnOpQr"],
  ["Hugging Face token", `HF ${"hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"}`, "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"],
  ["Twilio API key SID", `twilio ${"SK" + "0123456789abcdef0123456789abcdef"}`, "SK" + "0123456789abcdef0123456789abcdef"],
  [
    "Azure storage AccountKey",
    `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${"Zm9vYmFyYmF6" + "cXV4Zm9vYmFyYmF6cXV4Zm9v=="};EndpointSuffix=core.windows.net`,
    "Zm9vYmFyYmF6" + "cXV4Zm9vYmFyYmF6cXV4Zm9v==",
    "EndpointSuffix=core.windows.net",
  ],
  ["Azure SharedAccessKey", `Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=${"c2VjcmV0" + "c2VjcmV0c2VjcmV0"}=`, "c2VjcmV0" + "c2VjcmV0c2VjcmV0"],
  ["npm token", `//registry.npmjs.org/:_authToken=${"npm_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"}`, "npm_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"],
  ["npm token, bare", `use ${"npm_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"} now`, "npm_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "now"],
  ["Google API key", `key ${"AIza" + "SyA1234567890abcdefghijklmnopqrstuv"}`, "AIza" + "SyA1234567890abcdefghijklmnopqrstuv"],
  ["JWT", `cookie session=${JWT}; Path=/`, JWT],
  ["JWT, bare", `got ${JWT} back`, JWT, "back"],
  ["PEM private key, whole block", `before\n-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----\nafter`, PEM_BODY, "after"],
  ["OpenSSH private key", `-----BEGIN OPENSSH PRIVATE KEY-----\n${PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----`, PEM_BODY],
  ["PEM private key, cut off", `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}`, PEM_BODY],
  ["PEM private key, escaped in JSON", JSON.stringify({ key: `-----BEGIN EC PRIVATE KEY-----\n${PEM_BODY}\n-----END EC PRIVATE KEY-----` }), PEM_BODY.split("\n")[1]],
  ["PGP private key block", `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${PGP_BODY}\n-----END PGP PRIVATE KEY BLOCK-----\ndone`, PGP_BODY.split("\n")[0], "done"],
  ["password in a URL", "postgres://admin:" + "s3cretPass" + "@db.internal:5432/app", "s3cretPass", "postgres://admin:[REDACTED]@db.internal:5432/app"],
  ["password with @ in a URL", "mysql://user:" + "p@ss" + "@host/db", "p@ss", "mysql://user:[REDACTED]@host/db"],
  ["password with @ and : in a URL", "https://bob:" + "pa:ss@w0rd" + "@example.com/x", "pa:ss@w0rd", "https://bob:[REDACTED]@example.com/x"],
  ["mysql -p", "mysql -u root -p" + "Hunter2pw" + " appdb", "Hunter2pw", "appdb"],
  ["mysqldump -p", "mysqldump --single-transaction -h db -p'" + "Hunter2pw" + "' appdb > dump.sql", "Hunter2pw", "dump.sql"],
  ["--password X", "psql --password " + "Hunter2pw" + " --host db", "Hunter2pw", "--host db"],
  ["--password=X", "tool --password=" + "Hunter2pw", "Hunter2pw"],
  ["--token X", "gh auth --token " + "Hunter2pwToken", "Hunter2pwToken"],
  ["docker login -p", "docker login -u bob -p " + "Hunter2pw" + " registry.example.com", "Hunter2pw", "registry.example.com"],
  ["podman login --password", "podman login --username bob --password " + "Hunter2pw" + " quay.io", "Hunter2pw", "quay.io"],
  ["sshpass -p", "sshpass -p '" + "Hunter2pw" + "' ssh -p 2222 bob@host", "Hunter2pw", "ssh -p 2222 bob@host"],
  ["sshpass -pX", "sshpass -p" + "Hunter2pw" + " ssh host", "Hunter2pw", "ssh host"],
  ["password=", "db password=" + "Hunter2pw", "Hunter2pw"],
  ["JSON api_key", `{"api_key": "${"Hunter2pw"}"}`, "Hunter2pw", `{"api_key": "`],
  ["Bearer header", "Authorization: Bearer " + "abc123def456ghi789", "abc123def456ghi789"],
  ["Slack bot token", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKl", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKl"],
  ["GitHub token", "ghp_" + "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210", "ghp_" + "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"],
  ["OpenAI key", "sk-" + "proj-Abcdefghijklmnopqrstuvwx0123456789", "sk-" + "proj-Abcdefghijklmnopqrstuvwx0123456789"],
  ["Telegram bot token", "123456789" + ":AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ", ":AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ"],
  // The five shapes the second hardening round found in a brief (issue 37).
  ["digits as a password in a URL", "redis://:" + "12345678" + "@cache:6379", "12345678", "redis://:[REDACTED]@cache:6379"],
  ["password in a URL without a user name", "redis://:" + "Hunter2redis" + "@cache.internal:6379/0", "Hunter2redis", "redis://:[REDACTED]@cache.internal:6379/0"],
  ["curl -u, single-quoted", "curl -u 'admin:" + "Hunter2curl" + "' https://api.example.com/x", "Hunter2curl", "'admin:[REDACTED]' https://api.example.com/x"],
  ["curl --user, double-quoted", 'curl --user "admin:' + "Hunter2curl" + '" https://api.example.com/x', "Hunter2curl", '"admin:[REDACTED]"'],
  [
    "Discord webhook URL",
    "post to https://discord.com/api/webhooks/" + "1234567890123456789/" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdEFGHijklMNOPqrstUVWXyz01" + " now",
    "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "now",
  ],
  ["SendGrid key", "SENDGRID " + "SG." + "AbCdEfGhIjKlMnOpQrStUv" + "." + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdE", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdE", "SENDGRID"],
  ["SSHPASS in the environment", "SSHPASS=" + "Hunter2sshpass" + " sshpass -e ssh deploy@host", "Hunter2sshpass", "sshpass -e ssh deploy@host"],
  ["SSHPASS quoted", "export SSHPASS='" + "Hunter2 sshpass" + "'", "Hunter2 sshpass", "export SSHPASS="],
];

const MUST_SURVIVE = [
  "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the login check",
  "git checkout 3f78685 && git log -1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
  "session 0192f4a1-7c3e-7a51-9b2d-4f6e8a1c2b3d resumed",
  "thread th_4f6e8a1c2b3d, event ev_m1abcd12ef34",
  "npm test -- --grep login; exit code 1",
  "Run `mkdir -p build` and then `ssh -p 2222 deploy@host`; docker run -p 8080:80 nginx",
  "gcc -pthread -pedantic main.c && cp -pr src dst",
  "echo $PASSWORD | docker login --password-stdin -u bob registry.example.com",
  "The password field must not be empty; ask for a token only when needed.",
  "Open http://127.0.0.1:8787/chat or https://example.com:8443/path?q=1#top",
  "See src/agents/products/claude/store.ts and node_modules/@agentclientprotocol/sdk/dist/index.js",
  "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  "A sentence with ordinary words, numbers like 1234567890 and a date 2026-11-30T09:00:00Z.",
  "mysql -u root -p appdb",
  // Words after a secret's name are not its value: Baton's own and ordinary prose keep them.
  "Telegram check the bot token: HTTP 401 Unauthorized",
  "The web chat needs no token: nothing it answers is secret.",
  "A code is like a short-lived password: anyone allowed to talk to the bot can use it.",
  "Settings → Basic Information → App Credentials; Token authentication is off.",
  '{"usage":{"input_tokens":12,"output_tokens":6,"max_tokens":4096},"fallback_token_limit_override":null}',
  "    token: ${TELEGRAM_BOT_TOKEN}",
  "Keep the tokens in the environment (`SLACK_BOT_TOKEN=xoxb-… SLACK_APP_TOKEN=xapp-… baton start`).",
  "open `http://127.0.0.1:8787/?token=<that>`",
  "  # url: postgres://baton:${BATON_PG_PASSWORD}@db.internal:5432/baton",
  "tests pass: 12 of 12; DB_PASS=${DB_PASS} is read from the environment",
];

describe("redactSecrets", () => {
  it.each(MUST_REDACT)("redacts %s", (_shape, text, secret, context) => {
    const out = redactSecrets(text);
    expect(out).not.toContain(secret);
    expect(out).toContain("[REDACTED");
    if (context) expect(out).toContain(context);
  });

  it.each(MUST_SURVIVE.map((t) => [t]))("leaves alone: %s", (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it("redacts a URL's token once, leaving no stray bracket", () => {
    expect(redactSecrets("Web chat: http://127.0.0.1:8787/?token=cjjEmxG5PFk7k8EzIE92q_zj0R-HZ3rF")).toBe("Web chat: http://127.0.0.1:8787/?token=[REDACTED]");
  });

  it("keeps a JSON log line valid JSON", () => {
    const line = JSON.stringify({ msg: "ran mysql -p" + "Hunter2pw" + " db", cmd: "sshpass -p " + "Hunter2pw" + " ssh host", url: "redis://u:" + "p@ss" + "@h:6379" });
    const out = redactSecrets(line);
    expect(out).not.toContain("Hunter2pw");
    expect(out).not.toContain("p@ss");
    expect(() => JSON.parse(out)).not.toThrow();
  });

  // Each line is 1 MB of a shape that makes a careless pattern backtrack at every position.
  const MB = 1024 * 1024;
  const LONG_LINES: Array<[string, string]> = [
    ["letters", "a".repeat(MB)],
    ["upper case and digits", "A1".repeat(MB / 2)],
    ["base64", "Zm9vYmFy/+".repeat(MB / 10)],
    ["spaces after a secret name", `password${" ".repeat(MB)}`],
    ["repeated secret names", "password ".repeat(MB / 9)],
    ["repeated key=", "a_token=".repeat(MB / 8)],
    ["repeated BEGIN", "-----BEGIN RSA PRIVATE KEY-----".repeat(MB / 31)],
    ["repeated scheme", "http://a:".repeat(MB / 9)],
    ["repeated user:pass@", "https://u:p@".repeat(MB / 12)],
    ["repeated mysql", "mysql ".repeat(MB / 6)],
    ["repeated sshpass -p", "sshpass -p ".repeat(MB / 11)],
    ["repeated --password", "--password ".repeat(MB / 11)],
    ["repeated eyJ", "eyJabc.".repeat(MB / 7)],
    ["digits and colons", "123456789:".repeat(MB / 10)],
    ["AccountKey=", "AccountKey=".repeat(MB / 11)],
    ["repeated docker login", "docker login ".repeat(MB / 13)],
    ["repeated escaped quotes", 'password=\\"'.repeat(MB / 11)],
    ["repeated JSON secret keys", '"password":"'.repeat(MB / 12)],
  ];
  it.each(LONG_LINES)(
    "finishes on a 1 MB line of %s",
    (_name, line) => {
      expect(typeof redactSecrets(line)).toBe("string");
    },
    20_000,
  );
});

describe("secret values Baton knows", () => {
  it("replaces a registered value exactly, wherever it stands, and nothing else", () => {
    const token = "cfg" + "TokenValue_12345";
    registerSecretValues([token]);
    try {
      expect(redactKnownValues(`GET /bot${token}/getMe failed; check the bot token: HTTP 401`)).toBe("GET /bot[REDACTED]/getMe failed; check the bot token: HTTP 401");
      expect(redactSecrets(`the token is ${token}.`)).toBe("the token is [REDACTED].");
    } finally {
      forgetSecretValues([token]);
    }
    expect(redactKnownValues(`still ${token}`)).toBe(`still ${token}`);
  });

  it("matches a short minted code only as a whole word, and lets it go when forgotten", () => {
    const before = knownSecretCount();
    registerSecretValues(["K7QX"]);
    expect(redactKnownValues("/pickup K7QX issued; K7QXY and aK7QX are other words")).toBe("/pickup [REDACTED] issued; K7QXY and aK7QX are other words");
    forgetSecretValues(["K7QX"]);
    expect(knownSecretCount()).toBe(before);
    expect(redactKnownValues("/pickup K7QX")).toBe("/pickup K7QX");
  });

  it("keeps a value two holders registered until both let go", () => {
    registerSecretValues(["shared-Secret-1"]);
    registerSecretValues(["shared-Secret-1"]);
    forgetSecretValues(["shared-Secret-1"]);
    expect(redactKnownValues("shared-Secret-1")).toBe("[REDACTED]");
    forgetSecretValues(["shared-Secret-1"]);
    expect(redactKnownValues("shared-Secret-1")).toBe("shared-Secret-1");
  });
});

describe("URLs shown to people", () => {
  it("lose their user:password@, a missing user name included", () => {
    expect(urlForDisplay("redis://:" + "pw1234@cache:6379/0")).toBe("redis://cache:6379/0");
    expect(urlForDisplay("http://user:" + "pass@whisper.lan:9000/v1")).toBe("http://whisper.lan:9000/v1");
    expect(urlForDisplay("https://whisper.lan/v1?x=@y")).toBe("https://whisper.lan/v1?x=@y");
    expect(urlForDisplay("memory")).toBe("memory");
  });

  it("give up their password (or a lone user-name token) as known secrets", () => {
    expect(urlCredentials("redis://:" + "p%40ss@cache:6379")).toEqual(["p%40ss", "p@ss"]);
    expect(urlCredentials("https://" + "ghTokenOnly123@git.example.com/x")).toEqual(["ghTokenOnly123"]);
    expect(urlCredentials("https://git.example.com/x")).toEqual([]);
    expect(urlCredentials(undefined)).toEqual([]);
  });
});
