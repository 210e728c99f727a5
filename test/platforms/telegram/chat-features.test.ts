// Telegram with the demo agent, beyond the shared contract items: a schedule and a mode chosen by
// button survive a restart of Baton (a new process on the same data dir and the same fake Bot API),
// and the agent's files go out as the right Bot API call (sendPhoto for an image Telegram shows,
// sendDocument for the rest) with the caption as HTML. Baton runs as `baton start` (bin/baton.js,
// the shipped bundle), its workspace this repository (for /file package.json).
import { afterEach, describe, expect, it } from "vitest";
import { FakeBotApi } from "../../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../../fakes/telegram/fake-chats.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";
import { waitFor } from "./helpers.js";

const alice = user(111, "Alice", "alice");
const chat = privateChat(alice);
const WAIT_MS = 25_000;

let fake: FakeBotApi | undefined;
const batons: ShippedBaton[] = [];
afterEach(async () => {
  const stopped = batons.splice(0);
  for (const b of stopped) await b.stop();
  await fake?.close();
  fake = undefined;
  for (const b of stopped) expect(b.problems()).toEqual([]);
});

/** `baton start` on the fake Bot API; `dir` restarts the Baton that ran there. */
async function boot(dir?: string): Promise<ShippedBaton> {
  const workspaces = { roots: [process.cwd()], default: process.cwd() };
  const config = shippedConfig({ access: { roles: { admin: ["telegram:111"] } }, workspaces, platforms: { telegram: { token: fake!.token, api_root: fake!.apiRoot } } });
  const baton = await startShippedBaton(config, { dir, prefix: "baton-telegram-features-" });
  batons.push(baton);
  return baton;
}

const sent = (pattern: RegExp) => fake!.sentTo(111).filter((m) => pattern.test(m.text));

describe("telegram: chat features across a restart", { timeout: 90_000 }, () => {
  it("a schedule and a mode chosen by button come back after Baton restarts", async () => {
    fake = await FakeBotApi.start();
    const first = await boot();
    fake.userSends({ chat, from: alice, text: "/mode" });
    const menu = await waitFor(() => sent(/Mode: Code/)[0], "the mode menu", WAIT_MS);
    const plan = menu.replyMarkup!.inline_keyboard.flat().find((b) => b.text === "Plan")!;
    fake.userPresses(alice, menu, plan.callback_data);
    await waitFor(() => sent(/Mode: Plan \(plan\) ✓ — by @alice/)[0], "the menu showing the choice", WAIT_MS);
    fake.userSends({ chat, from: alice, text: '/schedule add "*/2 * * * * *" status check' });
    const added = await waitFor(() => sent(/⏰ Scheduled (\w{5})/)[0], "the schedule", WAIT_MS);
    const id = /Scheduled (\w{5})/.exec(added.text)![1];
    await waitFor(() => sent(/you said "status check"/)[0], "the first run", WAIT_MS);

    expect(await first.stop()).toBe(0);
    const before = sent(/you said "status check"/).length;
    await boot(first.dir);
    await waitFor(() => sent(/you said "status check"/).length > before, "a run after the restart", WAIT_MS);
    fake.userSends({ chat, from: alice, text: `/schedule rm ${id}` });
    await waitFor(() => sent(new RegExp(`Removed schedule ${id}`))[0], "the removal", WAIT_MS);
    fake.userSends({ chat, from: alice, text: "demo:whoami" });
    await waitFor(() => sent(/mode=plan model=demo-small/)[0], "the mode kept", WAIT_MS);
  });

  it("sends the agent's image with sendPhoto and a workspace file with sendDocument, captions as HTML", async () => {
    fake = await FakeBotApi.start();
    await boot();
    fake.userSends({ chat, from: alice, text: "demo:image" });
    await waitFor(() => fake!.callsOf("sendPhoto").length === 1, "sendPhoto", WAIT_MS);
    fake.userSends({ chat, from: alice, text: "/file package.json" });
    await waitFor(() => fake!.callsOf("sendDocument").length === 1, "sendDocument", WAIT_MS);
    const document = fake.sentTo(111).find((m) => m.media?.kind === "document")!;
    expect(document.media).toMatchObject({ name: "package.json" });
    expect(document.text).toBe("package.json");
    expect(fake.callsOf("sendDocument")[0].params).toMatchObject({ chat_id: "111", parse_mode: "HTML", caption: "<code>package.json</code>" });
    const photo = fake.sentTo(111).find((m) => m.media?.kind === "photo")!;
    expect(photo.media).toMatchObject({ name: "demo-squares.png", size: 74 });
  });
});
