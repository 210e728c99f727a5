// Discord runs the platform contract against the fake Discord (REST v10 + Gateway, test/fakes/discord).
// The group is #general with `threads: auto`: the first mention there starts a thread, and the
// group's conversation is that thread from then on.
import { createDiscordAdapter } from "../../src/platforms/discord/index.js";
import { discordConfigSchema } from "../../src/platforms/discord/config.js";
import { FakeDiscord, visibleText, type FakeChannel, type FakeMessage } from "../fakes/discord/index.js";
import { runAdapterContract, type ContractDriver, type ScriptedFailure, type ShownMessage, type Where } from "./contract.js";

const ROUTE = { send: "POST /channels/:channel/messages", edit: "PATCH /channels/:channel/messages/:message" } as const;
/** How long a press waits for a refusal before it counts as taken. */
const PRESS_SETTLE_MS = 1500;

runAdapterContract("discord", async (): Promise<ContractDriver> => {
  // Discord's buckets as documented: 5 messages per 5 s per channel (discord.js keeps to them from
  // the rate-limit headers; a call past them is a 429 the suite counts).
  const fake = await new FakeDiscord().start();
  const alice = fake.addUser("alice");
  const mallory = fake.addUser("mallory");
  const config = discordConfigSchema.parse({ token: fake.token, api_url: fake.apiUrl });
  const adapter = createDiscordAdapter("discord", config, { dataDir: "/nonexistent" });
  let groupThread: FakeChannel | undefined;

  const channelOf = (where: Where): FakeChannel => (where === "direct" ? fake.dmChannel(alice) : where === "strangerDirect" ? fake.dmChannel(mallory) : (groupThread ?? fake.general));
  const channelIds = (where: Where): string[] => (where === "group" ? [fake.general.id, ...(groupThread ? [groupThread.id] : [])] : [channelOf(where).id]);
  const show = (message: FakeMessage): ShownMessage => ({
    id: message.id,
    text: visibleText(message.content),
    buttons: message.components.flatMap((row: any) => row.components.map((button: any) => button.label)),
  });

  function failure(call: "send" | "edit", scripted: ScriptedFailure): void {
    if (scripted.kind === "rate_limited") fake.rateLimitNext(ROUTE[call], scripted.retryAfterMs / 1000);
    else if (scripted.kind === "formatting")
      fake.failNext(ROUTE[call], 400, 50035, "Invalid Form Body", { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } });
    else if (call === "edit") fake.failNext(ROUTE.edit, 404, 10008, "Unknown Message");
    else fake.failNext(ROUTE.send, 403, 50013, "Missing Permissions");
  }

  return {
    adapter,
    allowedId: `discord:${alice.id}`,
    visibleLimit: 2000,
    features: { remoteFailures: true, strangers: true, groups: true, files: true },
    route: (where) => `discord:${channelOf(where).id}`,
    async userSays(where, text, options = {}) {
      const author = options.stranger ? mallory : alice;
      const files = (options.files ?? []).map((f) => ({ name: f.name, content: f.data, contentType: f.mimeType }));
      const message = fake.say(author, channelOf(where), text, { mention: options.mention, files });
      if (where === "group" && options.mention && !groupThread) groupThread = await waitFor(() => fake.threadOf(message));
    },
    shown: (where) =>
      channelIds(where)
        .flatMap((id) => [...fake.botMessages(id), ...fake.world.messages.filter((m) => m.channelId === id && m.visibleTo !== undefined && !m.deleted)])
        .map(show),
    async press(_where, message, label, options = {}) {
      const user = options.stranger ? mallory : alice;
      const posted = fake.world.message(message.id)!;
      const button = posted.components.flatMap((row: any) => row.components).find((b: any) => b.label === label);
      const press = fake.press(user, posted, button.custom_id);
      const deadline = Date.now() + PRESS_SETTLE_MS;
      while (Date.now() < deadline) {
        const refusal = press.followUps.find((m) => m.visibleTo === user.id);
        if (refusal) return { ok: false, text: visibleText(refusal.content) };
        await new Promise((r) => setTimeout(r, 25));
      }
      return { ok: press.acknowledgedWith !== undefined, text: "" };
    },
    failNext: failure,
    rateRefusals: () => fake.http.floodRefusals.map((c) => `${c.method} ${c.path}`),
    calls: () =>
      fake.calls
        .filter((c) => (c.method === "POST" && c.route === "/channels/:channel/messages") || (c.method === "PATCH" && c.route === "/channels/:channel/messages/:message"))
        .map((c) => ({ call: c.method === "POST" ? ("send" as const) : ("edit" as const), at: c.at, failed: c.status >= 400, text: visibleText(c.body?.content ?? ""), messageId: c.params.message })),
    activity: (where) => channelIds(where).reduce((n, id) => n + fake.typingIn(id).length, 0),
    fileDownloads: () => fake.downloads.length,
    uploads: (where) =>
      channelIds(where).flatMap((id) =>
        fake
          .botMessages(id)
          .flatMap((m) => m.attachments.map((a) => ({ name: a.filename, mimeType: a.content_type, size: a.size, caption: visibleText(m.content), data: fake.rest.uploads.get(a.id) }))),
      ),
    close: () => fake.stop(),
  };
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting for the thread");
    await new Promise((r) => setTimeout(r, 20));
  }
}
