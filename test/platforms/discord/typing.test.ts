// Typing as a head start: when an allowed person starts typing (Discord's TYPING_START) in a DM
// whose agent idled out, `baton start` (the shipped bundle) resumes the thread's agent in the
// background, so the message that follows finds it live. A stranger's typing starts nothing.
import { afterEach, describe, expect, test } from "vitest";
import { eventually, startShippedDiscordBed, type ShippedDiscordBed } from "./helpers.js";

const E2E_TIMEOUT_MS = 20_000;
/** agents.idle_shutdown here: the thread's agent idles out quickly. */
const IDLE_MS = 1_000;

let bed: ShippedDiscordBed | undefined;
afterEach(async () => {
  const stopped = bed;
  bed = undefined;
  await stopped?.stop();
  if (stopped) expect(stopped.baton.problems()).toEqual([]);
});

describe("Discord typing", () => {
  test("typing in a DM whose agent idled out resumes it before the message arrives, held past a short agents.idle_shutdown; the message uses that host", async () => {
    bed = await startShippedDiscordBed({ baton: { agents: { idle_shutdown: IDLE_MS } } });
    const { fake, alice, baton } = bed;
    const dm = fake.dmChannel(alice);
    fake.dm(alice, "hello");
    await eventually(() => bed!.find(dm.id, /^Turn 1 of session/), E2E_TIMEOUT_MS, "the first answer");
    const starts = () => baton.log().filter((l) => l.msg === "agent host started");
    expect(starts()).toHaveLength(1);
    const thread = starts()[0].thread;
    const idledOut = () => baton.log().filter((l) => l.msg === "idle agent host shut down" && l.thread === thread);
    await eventually(() => idledOut()[0], E2E_TIMEOUT_MS, "the idle-out");

    fake.typing(alice, dm);
    const resumed = await eventually(() => starts()[1], E2E_TIMEOUT_MS, "the agent started on typing");
    expect(resumed).toMatchObject({ thread, how: expect.stringMatching(/^(resume|load)$/) });
    expect(baton.log().filter((l) => l.msg?.startsWith("someone is typing"))).toEqual([expect.objectContaining({ thread })]);
    // A person takes a few seconds to write: three times agents.idle_shutdown, well inside the ~10 s
    // Discord shows them typing. No message yet: the agent was started by the typing alone, and stays.
    await new Promise((r) => setTimeout(r, 3 * IDLE_MS));
    expect(idledOut()).toHaveLength(1);
    expect(bed.find(dm.id, /^Turn 2/)).toBeUndefined();

    fake.dm(alice, "back again");
    await eventually(() => bed!.find(dm.id, /^Turn 2 of session .*: you said "back again"$/), E2E_TIMEOUT_MS, "the answer in the same session");
    expect(starts()).toHaveLength(2);
    // After the turn, agents.idle_shutdown applies again.
    await eventually(() => idledOut()[1], E2E_TIMEOUT_MS, "the idle-out after the turn");
  });

  test("typing where no thread is yet keeps the spare it readies past a short agents.idle_shutdown", async () => {
    bed = await startShippedDiscordBed({ baton: { agents: { idle_shutdown: IDLE_MS, spare_host: true } } });
    const { fake, alice, baton } = bed;
    const spareLog = (msg: string) => baton.log().filter((l) => l.msg?.startsWith(msg));
    // The spare made at start-up goes unused for agents.idle_shutdown.
    await eventually(() => spareLog("spare agent process stopped")[0], E2E_TIMEOUT_MS, "the first spare to stop unused");
    const ready = spareLog("spare agent process ready").length;
    fake.typing(alice, fake.dmChannel(alice));
    await eventually(() => spareLog("spare agent process ready")[ready], E2E_TIMEOUT_MS, "a spare readied by the typing");
    await new Promise((r) => setTimeout(r, 3 * IDLE_MS));
    expect(spareLog("spare agent process stopped")).toHaveLength(1);
  });

  test("in a server's thread, a stranger's typing starts nothing; an allowed person's does", async () => {
    bed = await startShippedDiscordBed({ baton: { agents: { idle_shutdown: IDLE_MS } } });
    const { fake, alice, mallory, baton } = bed;
    const prompt = fake.say(alice, fake.general, "hello", { mention: true });
    const channel = await eventually(() => fake.threadOf(prompt), E2E_TIMEOUT_MS, "the thread");
    await eventually(() => bed!.find(channel.id, /^Turn 1 of session/), E2E_TIMEOUT_MS, "the first answer");
    const starts = () => baton.log().filter((l) => l.msg === "agent host started");
    const thread = starts()[0].thread;
    await eventually(() => baton.log().find((l) => l.msg === "idle agent host shut down" && l.thread === thread), E2E_TIMEOUT_MS, "the idle-out");

    fake.typing(mallory, channel);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    expect(starts()).toHaveLength(1);
    fake.typing(alice, channel);
    expect(await eventually(() => starts()[1], E2E_TIMEOUT_MS, "the agent started on typing")).toMatchObject({ thread });
  });
});
