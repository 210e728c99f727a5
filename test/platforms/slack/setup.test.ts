// Installing and running Slack: the manifest, `baton doctor`'s credentials check, HTTP mode with
// signature checking, and files shared in a conversation.
import { closedPort } from "../../support/closed-port.js";
import { freePort } from "../../support/free-port.js";
import { createHmac } from "node:crypto";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, test } from "vitest";
import type { InboundFile } from "../../../src/platforms/contract.js";
import { parse } from "yaml";
import { PlatformError } from "../../../src/kernel/errors.js";
import { checkSlackCredentials } from "../../../src/platforms/slack/doctor.js";
import { REQUIRED_BOT_EVENTS, REQUIRED_BOT_SCOPES, SLASH_COMMAND } from "../../../src/platforms/slack/scopes.js";
import { FakeSlack } from "../../fakes/slack/index.js";
import { eventually, RecordingCore, startSlackTestBed, type SlackTestBed } from "./helpers.js";

const HUMAN = "U0ALICE";

describe("Slack app manifest", () => {
  test("parses and lists exactly the scopes, events and command the code uses", async () => {
    const manifest = parse(await readFile(new URL("../../../docs/slack-manifest.yaml", import.meta.url), "utf8"));
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...REQUIRED_BOT_SCOPES].sort());
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([...REQUIRED_BOT_EVENTS].sort());
    expect(manifest.features.slash_commands.map((c: { command: string }) => c.command)).toEqual([SLASH_COMMAND]);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
  });
});

describe("checkSlackCredentials (baton doctor)", () => {
  let fake: FakeSlack | undefined;
  afterEach(async () => fake?.stop());

  test("good tokens and every scope granted", async () => {
    fake = await new FakeSlack({ scopes: [...REQUIRED_BOT_SCOPES] }).start();
    const report = await checkSlackCredentials({ bot_token: fake.options.botToken, app_token: fake.options.appToken, api_url: fake.apiUrl });
    expect(report).toEqual({ ok: true, lines: ["bot token: ok, @baton in Fake Team (T0FAKE)", "scopes: all granted", "app token: ok, Socket Mode available"] });
  });

  test("missing scopes and a wrong app token are named, and no token is printed", async () => {
    fake = await new FakeSlack({ scopes: ["chat:write", "commands"] }).start();
    const report = await checkSlackCredentials({ bot_token: fake.options.botToken, app_token: "xapp-wrong-secret", api_url: fake.apiUrl });
    expect(report.ok).toBe(false);
    expect(report.lines[1]).toBe(
      "scopes: missing app_mentions:read, channels:history, groups:history, im:history, mpim:history, reactions:write, files:read, files:write — add them (see docs/slack-manifest.yaml) and reinstall the app",
    );
    expect(report.lines[2]).toMatch(/^app token: refused \(invalid_auth\)/);
    expect(report.lines.join("\n")).not.toMatch(/xapp-wrong|xoxb-fake/);
  });

  test("usergroups:read is checked when an access list names a Slack user group, with where to add it", async () => {
    fake = await new FakeSlack({ scopes: [...REQUIRED_BOT_SCOPES] }).start();
    const tokens = { bot_token: fake.options.botToken, app_token: fake.options.appToken, api_url: fake.apiUrl };
    const accessEntries = ["slack:U0ALICE", "slack:group:S0DEVS", "discord:role:123", "slack:group:S0OPS", "slack:group:S0DEVS"];
    const report = await checkSlackCredentials(tokens, { accessEntries });
    expect(report).toEqual({
      ok: false,
      lines: [
        "bot token: ok, @baton in Fake Team (T0FAKE)",
        "scopes: missing usergroups:read, which your access lists need to see who is in slack:group:S0DEVS, slack:group:S0OPS: until the app has it, no one gets in through a user group — add usergroups:read under OAuth & Permissions → Scopes → Bot Token Scopes at api.slack.com/apps and reinstall the app",
        "app token: ok, Socket Mode available",
      ],
    });
    // Without a user group in the lists it is not needed; granted, it is all good.
    expect((await checkSlackCredentials(tokens, { accessEntries: ["slack:U0ALICE", "discord:role:123"] })).ok).toBe(true);
    await fake.stop();
    fake = await new FakeSlack({ scopes: [...REQUIRED_BOT_SCOPES, "usergroups:read"] }).start();
    const granted = await checkSlackCredentials({ ...tokens, bot_token: fake.options.botToken, app_token: fake.options.appToken, api_url: fake.apiUrl }, { accessEntries });
    expect(granted).toEqual({ ok: true, lines: ["bot token: ok, @baton in Fake Team (T0FAKE)", "scopes: all granted", "app token: ok, Socket Mode available"] });
  });

  test("a bad bot token", async () => {
    fake = await new FakeSlack().start();
    const report = await checkSlackCredentials({ bot_token: "xoxb-nope", api_url: fake.apiUrl, mode: "http" });
    expect(report).toEqual({ ok: false, lines: ["bot token rejected: refused (invalid_auth) — check bot_token (xoxb-…)"] });
  });

  test("Slack out of reach is said as such, not blamed on the tokens", async () => {
    const port = await closedPort();
    const report = await checkSlackCredentials({ bot_token: "xoxb-fake-bot-token", app_token: "xapp-fake", api_url: `http://127.0.0.1:${port}/api/` });
    expect(report).toEqual({ ok: false, unreachable: true, lines: [`cannot reach http://127.0.0.1:${port}/api/: ECONNREFUSED — check the network (or api_url); the tokens were not checked`] });
  });
});

describe("Slack adapter: start() failures are typed and name the key to fix", () => {
  let bed: SlackTestBed;
  afterEach(async () => bed?.stop());

  test("a bad bot token is refused, without the token in the message", async () => {
    bed = await startSlackTestBed({ config: { bot_token: "xoxb-not-the-right-one" } });
    const error = await bed.adapter.start(new RecordingCore()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ reason: "refused", userMessage: "Slack refused the bot token (invalid_auth); check platforms.slack.bot_token" });
    expect(String((error as Error).message)).not.toContain("xoxb-not");
  });

  test("a bad app token is refused at apps.connections.open, with no endless retry", async () => {
    bed = await startSlackTestBed({ config: { app_token: "xapp-not-the-right-one" } });
    const error = await bed.adapter.start(new RecordingCore()).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: "refused", userMessage: expect.stringContaining("Slack refused the app token (invalid_auth)") });
    expect(bed.fake.callsTo("apps.connections.open")).toHaveLength(1);
  });

  test("a bot token given as app token is caught before connecting", async () => {
    bed = await startSlackTestBed({ config: { app_token: "xoxb-fake-bot-token" } });
    const error = await bed.adapter.start(new RecordingCore()).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: "refused", userMessage: "platforms.slack.app_token must be an app-level token (xapp-…) for Socket Mode" });
    expect(bed.fake.calls).toHaveLength(0);
  });
});

describe("Slack adapter: HTTP mode and files", () => {
  let bed: SlackTestBed;
  afterEach(async () => bed?.stop());

  test("HTTP mode: signed requests reach the core, unsigned ones are rejected", async () => {
    const port = await freePort();
    const signingSecret = "test-signing-secret";
    bed = await startSlackTestBed({ config: { mode: "http", app_token: undefined, signing_secret: signingSecret, listen: `127.0.0.1:${port}` } });
    const core = new RecordingCore();
    const info = await bed.adapter.start(core);
    expect(info.description).toBe("slack: connected as @baton in Fake Team");
    expect(bed.fake.callsTo("apps.connections.open")).toHaveLength(0);

    const body = JSON.stringify({
      type: "event_callback",
      team_id: "T0FAKE",
      event_id: "Ev0HTTP",
      event: { type: "message", channel: "D0ALICE", channel_type: "im", user: HUMAN, text: "over http", ts: "1700000000.000001" },
    });
    const url = `http://127.0.0.1:${port}/slack/events`;
    const forged = await fetch(url, { method: "POST", headers: signedHeaders("wrong-secret", body), body });
    expect(forged.status).toBe(401);
    const signed = await fetch(url, { method: "POST", headers: signedHeaders(signingSecret, body), body });
    expect(signed.status).toBe(200);
    await eventually(() => core.messages.length === 1, 5000, "the signed event");
    expect(core.messages[0]).toMatchObject({ route: "slack:T0FAKE/D0ALICE", text: "over http", direct: true });
  });

  test("files shared in a conversation are descriptors: fetched with the bot token, only from Slack's hosts, only when asked", async () => {
    bed = await startSlackTestBed();
    const core = new RecordingCore();
    await bed.adapter.start(core);
    const small = bed.fake.addFile("F0SMALL", "hello file");
    await bed.fake.event({
      type: "message",
      subtype: "file_share",
      channel: "D0ALICE",
      channel_type: "im",
      user: HUMAN,
      text: "look",
      ts: bed.fake.nextTs(),
      files: [
        { id: "F0SMALL", name: "notes.txt", mimetype: "text/plain", size: 10, url_private_download: small },
        { id: "F0EVIL", name: "evil.txt", size: 10, url_private_download: "https://attacker.invalid/f" },
      ],
    }).acked;
    const message = await eventually(() => core.messages[0], 5000, "the file message");
    expect(message.text).toBe("look");
    expect(message.files!.map((f) => [f.name, f.mimeType, f.size])).toEqual([
      ["notes.txt", "text/plain", 10],
      ["evil.txt", undefined, 10],
    ]);
    // Nothing was downloaded yet: the core fetches only for allowed users.
    expect(bed.fake.callsTo("GET /files")).toHaveLength(0);
    expect((await contentOf(message.files![0])).toString()).toBe("hello file");
    expect(bed.fake.callsTo("GET /files").map((c) => c.params.id)).toEqual(["F0SMALL"]);
    // The token never goes to a host that is not Slack's.
    await expect(contentOf(message.files![1])).rejects.toMatchObject({ reason: "refused" });
    expect(bed.fake.callsTo("GET /files")).toHaveLength(1);
  });
});

async function contentOf(file: InboundFile): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of await file.fetch(AbortSignal.timeout(5000))) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function signedHeaders(secret: string, body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  return { "content-type": "application/json", "x-slack-request-timestamp": timestamp, "x-slack-signature": signature };
}
