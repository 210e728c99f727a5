// The scrubber against a corpus of real-world secret formats (the prefixes and lengths services
// document, as public scanners such as gitleaks and trufflehog list them), each in the kind of
// line it turns up in, and against ordinary text it must leave whole: the README, every doc, the
// example config and the recorded agent transcripts in test/fixtures. Only token-shaped strings
// may be redacted there; the measured figure is asserted, so a new false positive fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/kernel/secrets.js";

const ROOT = join(import.meta.dirname, "../..");

/** A deterministic run of `n` characters from `alphabet` (tokens built here, so this file holds no real one). */
function run(alphabet: string, n: number, seed = 7): string {
  let out = "";
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += alphabet[x % alphabet.length];
  }
  return out;
}
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const B64URL = `${ALNUM}_-`;
const UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** [format, the secret, the line it appears in ($ marks where)]. */
const CORPUS: Array<[string, string, string]> = [
  ["GitHub classic PAT", `ghp_${run(ALNUM, 36)}`, "git push https://$@github.com/acme/api.git"],
  ["GitHub OAuth token", `gho_${run(ALNUM, 36)}`, "token $ expires in 8h"],
  ["GitHub app installation token", `ghs_${run(ALNUM, 36)}`, "GITHUB_TOKEN: $"],
  ["GitHub fine-grained PAT", `github_pat_${run(ALNUM, 22)}_${run(ALNUM, 59)}`, "export GH_TOKEN=$"],
  ["GitLab PAT", `glpat-${run(B64URL, 20)}`, "PRIVATE-TOKEN: $"],
  ["GitLab runner token", `glrt-${run(B64URL, 20)}`, "runner registered with $"],
  ["Slack bot token", `xoxb-${run("0123456789", 12)}-${run("0123456789", 13)}-${run(ALNUM, 24)}`, "SLACK_BOT_TOKEN=$"],
  ["Slack user token", `xoxp-${run("0123456789", 12)}-${run("0123456789", 12)}-${run("0123456789", 13)}-${run(HEX, 32)}`, "user token $"],
  ["Slack app-level token", `xapp-1-A${run(UPPER_ALNUM, 10)}-${run("0123456789", 13)}-${run(HEX, 64)}`, "app_token: $"],
  ["Slack webhook", `https://hooks.slack.com/services/T${run(UPPER_ALNUM, 8)}/B${run(UPPER_ALNUM, 8)}/${run(ALNUM, 24)}`, "curl -X POST $ -d '{}'"],
  ["Discord webhook", `https://discord.com/api/webhooks/${run("0123456789", 19)}/${run(B64URL, 68)}`, "webhook: $"],
  ["Discord webhook (canary, discordapp, v10)", `https://canary.discordapp.com/api/v10/webhooks/${run("0123456789", 18)}/${run(B64URL, 68)}`, "$"],
  ["Discord bot token", `MTA${run(B64URL, 23)}.${run(B64URL, 6)}.${run(B64URL, 38)}`, "DISCORD_BOT_TOKEN $"],
  ["Telegram bot token", `${run("0123456789", 10)}:AA${run(B64URL, 33)}`, "https://api.telegram.org/bot$/getMe"],
  ["Matrix access token", `syt_${run(ALNUM, 10)}_${run(ALNUM, 20)}_${run(ALNUM, 6)}`, "Authorization: Bearer $"],
  ["AWS access key id", `AKIA${run(UPPER_ALNUM, 16)}`, "aws_access_key_id = $"],
  ["AWS secret access key", run("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+", 40, 11), "aws_secret_access_key = $"],
  ["OpenAI project key", `sk-proj-${run(B64URL, 48)}`, "OPENAI_API_KEY=$"],
  ["Anthropic API key", `sk-ant-api03-${run(B64URL, 93)}AA`, "x-api-key: $"],
  ["Stripe secret key", `sk_live_${run(ALNUM, 24)}`, "Stripe.api_key = '$'"],
  ["Stripe restricted key", `rk_live_${run(ALNUM, 24)}`, "$"],
  ["Stripe webhook secret", `whsec_${run(ALNUM, 32)}`, "STRIPE_WEBHOOK_SECRET=$"],
  ["SendGrid API key", `SG.${run(B64URL, 22)}.${run(B64URL, 43)}`, "sg = SendGridAPIClient('$')"],
  ["Twilio API key SID", `SK${run(HEX, 32)}`, "twilio api:core:keys $"],
  ["Mailgun API key", `key-${run(LOWER_ALNUM, 32)}`, "api:$"],
  ["Mailchimp API key", `${run(HEX, 32)}-us14`, "MAILCHIMP_KEY $"],
  ["Google API key", `AIza${run(B64URL, 35)}`, "maps?key=$"],
  ["Google OAuth client secret", `GOCSPX-${run(B64URL, 28)}`, "client_secret $"],
  ["Google OAuth access token", `ya29.${run(B64URL, 120)}`, "Authorization: Bearer $"],
  ["Hugging Face token", `hf_${run(ALNUM, 34)}`, "HF_TOKEN=$"],
  ["npm token", `npm_${run(ALNUM, 36)}`, "//registry.npmjs.org/:_authToken=$"],
  ["PyPI token", `pypi-AgEIcHlwaS5vcmc${run(B64URL, 70)}`, "password = $"],
  ["RubyGems key", `rubygems_${run(HEX, 48)}`, "GEM_HOST_API_KEY $"],
  ["Docker Hub PAT", `dckr_pat_${run(B64URL, 27)}`, "echo $ | docker login -u bob --password-stdin"],
  ["Shopify access token", `shpat_${run(HEX, 32)}`, "X-Shopify-Access-Token: $"],
  ["Square access token", `sq0atp-${run(B64URL, 22)}`, "square $"],
  ["DigitalOcean PAT", `dop_v1_${run(HEX, 64)}`, "doctl auth init -t $"],
  ["Supabase access token", `sbp_${run(HEX, 40)}`, "SUPABASE_ACCESS_TOKEN $"],
  ["Pulumi access token", `pul-${run(HEX, 40)}`, "pulumi login with $"],
  ["Doppler service token", `dp.st.prd.${run(ALNUM, 40)}`, "DOPPLER_TOKEN $"],
  ["HashiCorp Vault token", `hvs.${run(B64URL, 90)}`, "VAULT_TOKEN $"],
  ["Terraform Cloud token", `${run(ALNUM, 14)}.atlasv1.${run(B64URL, 67)}`, "credentials app.terraform.io $"],
  ["Atlassian API token", `ATATT3xFfGF0${run(B64URL, 180)}`, "jira $"],
  ["Grafana service account token", `glsa_${run(ALNUM, 32)}_${run(HEX, 8)}`, "GF_TOKEN $"],
  ["New Relic user key", `NRAK-${run(UPPER_ALNUM, 27)}`, "NEW_RELIC_API_KEY $"],
  ["Postman API key", `PMAK-${run(HEX, 24)}-${run(HEX, 34)}`, "postman $"],
  ["Linear API key", `lin_api_${run(ALNUM, 40)}`, "linear $"],
  ["Replicate token", `r8_${run(ALNUM, 37)}`, "REPLICATE_API_TOKEN $"],
  ["Groq key", `gsk_${run(ALNUM, 52)}`, "groq $"],
  ["Tailscale auth key", `tskey-auth-${run(ALNUM, 12)}-${run(ALNUM, 33)}`, "tailscale up --authkey $"],
  ["Databricks token", `dapi${run(HEX, 32)}`, "databricks $"],
  ["age secret key", `AGE-SECRET-KEY-1${run("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)}`, "# $"],
  ["JWT", `eyJhbGciOiJIUzI1NiJ9.${run(B64URL, 40)}.${run(B64URL, 43)}`, "cookie: session=$"],
  ["password in a database URL", run(ALNUM, 16), "DATABASE_URL=postgres://app:$@db:5432/app"],
  ["password in a Redis URL without a user", run(ALNUM, 16), "REDIS_URL=redis://:$@cache:6379"],
  ["curl -u quoted", run(ALNUM, 14), "curl -u 'admin:$' https://x.example.com"],
  ["SSHPASS", run(ALNUM, 14), "SSHPASS=$ sshpass -e ssh host"],
  ["PGPASSWORD", run(ALNUM, 14), "PGPASSWORD=$ psql -h db"],
  ["password flag", run(ALNUM, 14), "mysql -u root -p$ app"],
];

describe("the scrubber against real-world secret formats", () => {
  it.each(CORPUS)("redacts %s", (_format, secret, line) => {
    const text = line.replace("$", secret);
    const out = redactSecrets(text);
    expect(out).not.toContain(secret);
    expect(out).toContain("[REDACTED");
  });
});

/** Every redaction in `text`: the original substring each [REDACTED…] replaced (lines compared one by one). */
function redactedSpans(text: string): string[] {
  const spans: string[] = [];
  for (const line of text.split("\n")) {
    const out = redactSecrets(line);
    if (out === line) continue;
    // The part that changed: strip the common start and end of the two lines.
    let start = 0;
    while (start < line.length && line[start] === out[start]) start++;
    let end = 0;
    while (end < line.length - start && line[line.length - 1 - end] === out[out.length - 1 - end]) end++;
    spans.push(line.slice(start, line.length - end));
  }
  return spans;
}

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && pattern.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

describe("false positives on ordinary text", () => {
  const docs = [join(ROOT, "README.md"), join(ROOT, "config.example.yaml"), ...filesUnder(join(ROOT, "docs"), /\.md$/)];
  const transcripts = filesUnder(join(ROOT, "test/fixtures/agents"), /\.(jsonl|sql)$/);

  it("leaves the README, the docs and the example config whole but for the one example token", () => {
    const spans = docs.flatMap((f) => redactedSpans(readFileSync(f, "utf8")));
    // docs/web.md shows what the start line prints, token and all: a real token's shape.
    expect(spans).toEqual(["aMXRuoZs2vdjLzeCVfO-FIYjJdv1jsN4"]);
  });

  it("leaves recorded agent transcripts whole but for the secret planted in them", () => {
    expect(transcripts.length).toBeGreaterThan(5);
    const spans = transcripts.flatMap((f) => redactedSpans(readFileSync(f, "utf8")));
    // The fixtures plant one GitHub token in a prompt, recorded once or more in each agent's store:
    // exactly its copies go, nothing else.
    const planted = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const copies = transcripts.reduce((n, f) => n + readFileSync(f, "utf8").split(planted).length - 1, 0);
    expect(copies).toBeGreaterThanOrEqual(5);
    expect(spans).toEqual(Array(copies).fill(planted));
  });
});
