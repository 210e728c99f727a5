// The wire fakes enforce the platforms' documented rate limits, so a contract item fails when the
// core's pacing is too eager: a client that sends faster gets 429 with the wait, as the platform
// answers it, and the fake notes the refusal.
import { afterEach, describe, expect, it } from "vitest";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { FakeSlack } from "../fakes/slack/index.js";
import { FloodGate } from "../fakes/flood.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; retryAfter: string | null }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json(), retryAfter: response.headers.get("retry-after") };
}

describe("the fakes' rate limits", () => {
  it("Telegram: a burst of three in one chat passes, the fourth at once gets 429 with retry_after; another chat is not held", async () => {
    const fake = await FakeBotApi.start();
    closers.push(() => fake.close());
    const send = (chat: number, text: string) => post(`${fake.apiRoot}/bot${fake.token}/sendMessage`, { chat_id: chat, text });
    for (const text of ["one", "two", "three"]) expect((await send(111, text)).status).toBe(200);
    const refused = await send(111, "four");
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ ok: false, error_code: 429, parameters: { retry_after: 1 } });
    expect((await send(222, "elsewhere")).status).toBe(200);
    expect(fake.floodRefusals).toHaveLength(1);
    expect(fake.floodRefusals[0]).toMatchObject({ rule: "chat", key: "111" });
  });

  it("Telegram: a group gets 20 a minute, however they are spread", async () => {
    const fake = await FakeBotApi.start();
    closers.push(() => fake.close());
    fake.flood = { chat: { burst: 100, perSecond: 100 }, group: { calls: 20, windowMs: 60_000 }, bot: { calls: 30, windowMs: 1_000 } };
    const send = (text: string) => post(`${fake.apiRoot}/bot${fake.token}/sendMessage`, { chat_id: -100500, text });
    for (let i = 0; i < 20; i++) expect((await send(`m${i}`)).status).toBe(200);
    const refused = await send("one too many");
    expect(refused.status).toBe(429);
    expect(refused.json.parameters.retry_after).toBeGreaterThan(50);
  });

  it("Slack: chat.postMessage past a channel's burst, and chat.update past Tier 3, get 429 with Retry-After", async () => {
    const fake = await new FakeSlack().start();
    closers.push(() => fake.stop());
    const auth = { authorization: `Bearer ${fake.options.botToken}` };
    const postMessage = () => post(`${fake.apiUrl}chat.postMessage`, { channel: "C1", text: "hi" }, auth);
    for (let i = 0; i < 3; i++) expect((await postMessage()).status).toBe(200);
    const refused = await postMessage();
    expect(refused).toMatchObject({ status: 429, json: { ok: false, error: "ratelimited" }, retryAfter: "1" });
    fake.flood = { post: { burst: 3, perSecond: 1 }, update: { calls: 2, windowMs: 60_000 } };
    const ts = fake.botMessages("C1")[0].ts;
    const update = (text: string) => post(`${fake.apiUrl}chat.update`, { channel: "C1", ts, text }, auth);
    expect((await update("a")).status).toBe(200);
    expect((await update("b")).status).toBe(200);
    expect((await update("c")).status).toBe(429);
    expect(fake.floodRefusals.map((r) => r.rule)).toEqual(["chat.postMessage", "chat.update"]);
  });

  it("a burst rule allows calls a little closer than the rate (requests can arrive bunched), not much closer", () => {
    const gate = new FloodGate();
    const rule = { kind: "burst" as const, burst: 1, perSecond: 1 };
    expect(gate.admit([{ name: "chat", rule, key: "k" }], 0)).toBeUndefined();
    expect(gate.admit([{ name: "chat", rule, key: "k" }], 970)).toBeUndefined();
    expect(gate.admit([{ name: "chat", rule, key: "k" }], 1_500)).toBe(500);
  });
});
