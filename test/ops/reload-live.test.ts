// `baton reload` applies what it lists, through the shipped CLI (`bin/baton.js`, dist/bundle) with
// Telegram on its wire fake: a reload that adds a binding, a schedule and a time zone applies all
// three without a restart: the schedule fires into the bound workspace's new thread, and the
// chat's /status shows the binding. A binding naming an agent that does not exist changes nothing.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../fakes/telegram/fake-chats.js";
import { waitFor } from "../platforms/telegram/helpers.js";
import { BatonProcesses } from "../support/baton-process.js";

const alice = user(111, "Alice", "alice");
const TIMEOUT_MS = 30_000;

let dir: string;
let fake: FakeBotApi;
let baton: BatonProcesses;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "baton-reload-"));
  fake = await FakeBotApi.start({ username: "reload_bot" });
  baton = new BatonProcesses(dir);
});

afterEach(async () => {
  await baton.stopAll();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(extra: string[]): void {
  baton.writeConfig([
    "agents: { default: demo, spare_host: false }",
    "access: { allow: [telegram:111] }",
    "ops: { listen: 127.0.0.1:0 }",
    `workspaces: { roots: ["${dir}"], default: "${dir}" }`,
    ...extra,
    "platforms:",
    `  telegram: { token: "${fake.token}", api_root: "${fake.apiRoot}" }`,
  ]);
}

const sentTo = (pattern: RegExp) => fake.sentTo(111).find((m) => pattern.test(m.text));

describe("baton reload applies what it lists", { timeout: 120_000 }, () => {
  it("a binding, a schedule and a time zone added by a reload apply without a restart", async () => {
    const bound = join(dir, "bound-project");
    mkdirSync(bound);
    writeConfig([]);
    const running = await baton.start();

    // A binding naming an agent that does not exist: refused, nothing changes.
    writeConfig([`bindings: [{ match: "telegram:111*", workspace: "${bound}", agent: no-such-agent }]`]);
    const refused = baton.run("reload");
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/bindings\[0\]/);

    writeConfig([
      `bindings: [{ match: "telegram:111*", workspace: "${bound}" }]`,
      'schedules: [{ route: "telegram:111", cron: "*/2 * * * * *", prompt: "scheduled ping" }]',
      "time_zone: Europe/Berlin",
    ]);
    const reload = baton.run("reload");
    expect(reload.status, reload.stderr).toBe(0);
    expect(reload.stdout.trim()).toBe("config reloaded: applied bindings, schedules, time_zone");

    // The schedule fires, into a new thread the binding placed in its workspace.
    await waitFor(() => sentTo(/Schedule config-1: scheduled ping/), "the schedule fired", TIMEOUT_MS).catch((error: Error) => {
      throw new Error(`${error.message}\nsent: ${JSON.stringify(fake.sentTo(111).map((m) => m.text))}\nstderr:\n${running.err()}`);
    });
    await waitFor(() => sentTo(/you said "scheduled ping"/), "the scheduled prompt answered", TIMEOUT_MS);
    fake.userSends({ chat: privateChat(alice), from: alice, text: "/status" });
    const status = await waitFor(() => sentTo(/Binding/), "/status", TIMEOUT_MS);
    expect(status.text).toContain(bound);
    expect(status.text).toMatch(/telegram:111\* \(bindings\[0\] in the config\)/);
    fake.userSends({ chat: privateChat(alice), from: alice, text: "/schedule list" });
    await waitFor(() => sentTo(/config-1[\s\S]*Europe\/Berlin/), "the schedule in its time zone", TIMEOUT_MS);

    const json = JSON.parse(baton.run("status", "--json").stdout) as { lastReload: unknown };
    expect(json.lastReload).toMatchObject({ ok: true, applied: ["bindings", "schedules", "time_zone"], restartNeeded: [] });
    expect(running.child.exitCode).toBeNull();
  });
});
