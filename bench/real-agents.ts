// The wait a person feels with a real agent: Claude Code (its ACP adapter), Codex (codex-acp) and
// Gemini CLI, installed by `npm run test:agents` and answering from the rig's fake model servers
// (they answer at once, so what is left is the agents' own start-up and Baton's). Per CLI, a
// prompt written into a Discord DM at the fake's wire → the first text of the answer at the wire:
// (a) a new thread (the spare settled, and the spare just ready), (b) a thread whose agent is live,
// (c) after its agent idled out, with and without a typing signal first; next to the same CLI
// driven by a bare ACP client (lib/acp-direct).
// Skipped with a note when the CLIs are not installed. BENCH_REAL_AGENTS=claude,codex measures only
// those; BENCH_REAL_AGENTS_DEBUG=<file> writes Baton's log, the fakes' calls and the prompts' times to <file>.<cli>,
// and Claude Code's own debug logs (written when DEBUG_CLAUDE_AGENT_SDK=1; CLAUDE_CODE_PROFILE_QUERY=1 adds each
// query's phases) to <file>.claude-debug/.
import { cpSync, existsSync, lstatSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { visibleText } from "../test/fakes/discord/index.js";
import type { FakeDiscord } from "../test/fakes/discord/index.js";
import type { Sandbox } from "../test/agents-real/support/sandbox.js";
import { directRun, type DirectLaunch } from "./lib/acp-direct.js";
import { BatonProcess, REPO_ROOT, sleep, until } from "./lib/baton.js";
import { startFakes } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";

export interface RealAgentsScale {
  /** Bare ACP client runs (each: one cold prompt, then `directWarm` on its live session). */
  directRuns: number;
  directWarm: number;
  /** New threads, each on a fresh DM, sent once the spare has been ready for SPARE_SETTLED_MS. */
  newThreads: number;
  /** New threads sent the moment the spare is ready (its CLI still finishing its own start-up): a diagnostic, the target is read on `newThreads`. */
  newThreadsJustReady: number;
  /** Prompts to a live thread. */
  live: number;
  /** Prompts after the thread's agent idled out, with typing first and without. */
  idledTyping: number;
  idledNoTyping: number;
}

export const REAL_AGENTS_FULL: RealAgentsScale = { directRuns: 3, directWarm: 3, newThreads: 5, newThreadsJustReady: 1, live: 7, idledTyping: 3, idledNoTyping: 2 };
/** A CLI outside the ratio target (Gemini CLI) gets fewer samples: the suite's time goes to the two it is about. */
const OUTSIDE_TARGET: RealAgentsScale = { directRuns: 2, directWarm: 2, newThreads: 3, newThreadsJustReady: 1, live: 5, idledTyping: 2, idledNoTyping: 1 };

/**
 * agents.idle_shutdown in the bench: short, so (c) does not wait ten minutes; long enough that a
 * live thread's agent lasts between two (b) prompts (1.6 s apart) and a spare for (a) is not
 * stopped while it settles.
 */
const IDLE_SHUTDOWN_MS = 4_000;
/**
 * agents.idle_shutdown for (c), set by a config reload once (a) and (b) are done: each (c) waits
 * for its agent to idle out, and only that wait shortens. The agent a typing signal starts ahead
 * stays for the 10 s Discord shows the person typing, whatever agents.idle_shutdown says, so it is
 * still there when the prompt comes TYPING_LEAD_MS later.
 */
const IDLE_SHUTDOWN_C_MS = 1_000;
/**
 * (a): how long the spare has been ready when the new thread's message comes. Claude Code keeps
 * starting up for 0.1–0.3 s after answering `session/new` (it connects the session's MCP servers,
 * starts its LSP manager, checks plugins, tests ripgrep, looks for IDEs with `ps`), on the same two
 * cores as the prompt; a person's message does not come in that moment but after the spare has sat
 * ready. The moment itself is measured too (newThreadsJustReady).
 */
const SPARE_SETTLED_MS = 1_000;
/** How long before sending a person's client says they are typing (a short message; a longer one takes longer to type). */
const TYPING_LEAD_MS = 3_000;
/** A turn is over once its chat saw no call for this long. */
const SETTLED_MS = 500;
/**
 * Between two prompts in one chat: a person reads the answer first. Each turn posts one message and
 * Discord allows 5 per channel in 5 s, so this keeps Baton's pacing out of the figures.
 */
const READ_MS = 1_100;
const ANSWER_TIMEOUT_MS = 120_000;
/** (a) and (c) against (b): the issue's target for Claude Code and Codex. */
const WARM_RATIO_TARGET = 1.2;
/** Baton's overhead on a live thread's first answer, p50. */
const LIVE_OVERHEAD_TARGET_MS = 15;

const AGENT_BIN = join(REPO_ROOT, "test", "agents-real", "node_modules", ".bin");

interface Cli {
  kind: "claude" | "codex" | "gemini";
  label: string;
  command: string;
  args: string[];
  /** The issue's (a)/(c) ≤ 1.2 × (b) target applies. */
  warmTarget: boolean;
  fake(box: Sandbox): Sandbox["fakes"][keyof Sandbox["fakes"]];
}

const CLIS: Cli[] = [
  { kind: "claude", label: "Claude Code", command: "claude-agent-acp", args: [], warmTarget: true, fake: (box) => box.fakes.anthropic },
  { kind: "codex", label: "Codex", command: "codex-acp", args: [], warmTarget: true, fake: (box) => box.fakes.openai },
  { kind: "gemini", label: "Gemini CLI", command: "gemini", args: ["--acp", "--approval-mode", "default"], warmTarget: false, fake: (box) => box.fakes.gemini },
];

/** BENCH_REAL_AGENTS=claude,codex measures only those. */
const ONLY = process.env.BENCH_REAL_AGENTS?.split(",").filter(Boolean);

export async function benchRealAgents(scale: RealAgentsScale): Promise<Array<Figure | string>> {
  const missing = CLIS.filter((cli) => !existsSync(join(AGENT_BIN, cli.command)));
  if (missing.length === CLIS.length) return ["· real agents: skipped — the agent CLIs are not installed (`npm run test:agents` installs them into test/agents-real)"];
  // Loaded only when the CLIs are there: the rig's fakes and sandbox.
  const { Sandbox } = await import("../test/agents-real/support/sandbox.js");
  const box = await Sandbox.create();
  const out: Array<Figure | string> = [];
  try {
    for (const cli of CLIS) {
      if (ONLY && !ONLY.includes(cli.kind)) continue;
      if (missing.includes(cli)) {
        out.push(`· real agents: ${cli.label} skipped — \`${cli.command}\` is not installed`);
        continue;
      }
      cli.fake(box).brain.on(/^Ping /, { text: "Pong." });
      out.push(...(await benchCli(box, cli, cli.warmTarget ? scale : OUTSIDE_TARGET)));
    }
  } finally {
    await box.stop();
    await box.remove();
  }
  return out;
}

async function benchCli(box: Sandbox, cli: Cli, scale: RealAgentsScale): Promise<Array<Figure | string>> {
  const workspace = box.workspace(`bench-${cli.kind}`);
  const launch: DirectLaunch = { command: join(AGENT_BIN, cli.command), args: cli.args, cwd: workspace, env: box.env() };
  const cold: number[] = [];
  const first: number[] = [];
  const warm: number[] = [];
  const firstCpu: number[] = [];
  const warmCpu: number[] = [];
  const phases = new Phases();
  for (let i = 0; i < scale.directRuns; i++) {
    const run = await directRun(launch, (n) => `Ping direct ${i}.${n}`, scale.directWarm, SPARE_SETTLED_MS);
    cold.push(run.coldMs);
    first.push(run.firstPromptMs);
    warm.push(...run.warmMs);
    if (run.firstPromptCpuMs !== undefined) firstCpu.push(run.firstPromptCpuMs);
    warmCpu.push(...run.warmCpuMs);
  }
  phases.lap("bare client");
  const viaBaton = await throughBaton(box, cli, workspace, scale, phases);
  const id = (what: string) => `real:${cli.kind}:${what}`;
  const label = (what: string) => `${cli.label}: ${what}`;
  const figures = {
    direct: figure(
      {
        id: id("direct"),
        label: label("bare ACP client, new session"),
        definition: "spawn → initialize → session/new → prompt → first agent_message_chunk with text (the pause before the prompt not counted)",
        unit: "ms",
      },
      cold,
    ),
    directFirst: figure(
      {
        id: id("direct-first"),
        label: label("bare ACP client, first prompt of a new session"),
        definition: `session/new answered, ${SPARE_SETTLED_MS / 1000} s later a prompt → first agent_message_chunk with text (what a session made ahead leaves)`,
        unit: "ms",
      },
      first,
    ),
    directWarm: figure({ id: id("direct-live"), label: label("bare ACP client, live session"), definition: "prompt on the open session → first agent_message_chunk with text", unit: "ms" }, warm),
    a: figure(
      {
        id: id("a"),
        label: label("(a) new thread"),
        definition: `a DM from a new person at the Discord fake, the spare ready for ${SPARE_SETTLED_MS / 1000} s → the first text of the answer at the fake`,
        unit: "ms",
      },
      viaBaton.a,
    ),
    aJustReady: figure(
      {
        id: id("a-just-ready"),
        label: label("(a) new thread, the spare just ready"),
        definition: "the same DM sent the moment the spare answered session/new → the first text of the answer",
        unit: "ms",
      },
      viaBaton.aJustReady,
    ),
    b: figure({ id: id("b"), label: label("(b) live thread"), definition: "a prompt in a thread whose agent runs → the first text of the answer, both at the fake", unit: "ms" }, viaBaton.b),
    c: figure(
      {
        id: id("c"),
        label: label("(c) after idle-out, typing first"),
        definition: `the agent idled out; the person's client says they type ${TYPING_LEAD_MS / 1000} s before the prompt (TYPING_START) → the first text of the answer`,
        unit: "ms",
      },
      viaBaton.cTyping,
    ),
    cCold: figure(
      { id: id("c-no-typing"), label: label("(c) after idle-out, no typing signal"), definition: "the agent idled out, no typing event (Telegram, Slack) → the first text of the answer", unit: "ms" },
      viaBaton.c,
    ),
  };
  const { direct, directFirst, directWarm, a, aJustReady, b, c } = figures;
  const overheadA = a.median - direct.median;
  const overheadAhead = a.median - directFirst.median;
  const overheadB = b.median - directWarm.median;
  const ratio = (x: number) => (x / b.median).toFixed(2);
  const lines = [
    `  ${cli.label}: Baton's overhead on (a) = ${Math.round(overheadA)} ms (a / direct = ${(a.median / direct.median).toFixed(2)}; against the bare client's first prompt of a new session ${Math.round(overheadAhead)} ms); on (b) = ${overheadB.toFixed(1)} ms p50 (target ≤ ${LIVE_OVERHEAD_TARGET_MS} ms ${overheadB <= LIVE_OVERHEAD_TARGET_MS ? "✓" : "✗"}); (a)/(b) = ${ratio(a.median)}, (c)/(b) = ${ratio(c.median)}, spare just ready (a)/(b) = ${ratio(aJustReady.median)}${cli.warmTarget ? ` (target ≤ ${WARM_RATIO_TARGET} ${a.median <= WARM_RATIO_TARGET * b.median && c.median <= WARM_RATIO_TARGET * b.median ? "✓" : "✗"})` : ""}`,
  ];
  // The agent's own work per prompt, steadier than its wall time on a loaded machine (Linux only).
  const cpu = firstCpu.length
    ? [
        figure(
          {
            id: id("direct-first-cpu"),
            label: label("bare ACP client, CPU of the agent for a session's first prompt"),
            definition: "the CLI's and its adapter's CPU time from the first prompt sent to its end",
            unit: "ms",
          },
          firstCpu,
        ),
        figure({ id: id("direct-live-cpu"), label: label("bare ACP client, CPU of the agent for a prompt on the live session"), definition: "the same for a later prompt", unit: "ms" }, warmCpu),
      ]
    : [];
  return [...Object.values(figures), ...cpu, ...lines, `  ${cli.label}: ${phases.summary()}`];
}

interface BatonSamples {
  a: number[];
  aJustReady: number[];
  b: number[];
  c: number[];
  cTyping: number[];
}

async function throughBaton(box: Sandbox, cli: Cli, workspace: string, scale: RealAgentsScale, phases: Phases): Promise<BatonSamples> {
  const fakes = await startFakes({ discord: true });
  const discord = fakes.discord!;
  const config = (idleShutdownMs: number) =>
    stringify({
      log: { level: "info" },
      // agents.nice 0: the agent gets the CPU the bare client's does, so the difference is Baton's
      // (on this shared machine the default idle class would measure its neighbours instead).
      agents: { default: cli.kind, idle_shutdown: idleShutdownMs, nice: 0 },
      access: { allow: ["discord:*"] },
      workspaces: { default: workspace, roots: [box.root] },
      rendering: { show_usage: false },
      platforms: { discord: { token: discord.token, api_url: discord.apiUrl } },
    });
  const baton = new BatonProcess({ config: config(IDLE_SHUTDOWN_MS), env: box.env(), keepLog: true });
  const samples: BatonSamples = { a: [], aJustReady: [], b: [], c: [], cTyping: [] };
  try {
    await baton.waitForLine(/^Baton ready/, 60_000);
    phases.lap("Baton's start");
    const count = (msg: string) => baton.logLines.filter((l) => l.text.includes(`"msg":"${msg}`)).length;
    const spareFree = () => count("spare agent process ready") > count("agent host started on the spare process") + count("spare agent process stopped");
    let person = discord.addUser("bench-0");
    const newThreads = scale.newThreads + scale.newThreadsJustReady;
    for (let i = 0; i < newThreads; i++) {
      // The just-ready samples go between the settled ones, so both meet the same stretch of the run.
      const justReady = i % 2 === 1 && i <= 2 * scale.newThreadsJustReady;
      await until(spareFree, `a spare ${cli.label} process`, ANSWER_TIMEOUT_MS, 1);
      if (!justReady) await sleep(SPARE_SETTLED_MS);
      person = discord.addUser(`bench-${i}`);
      (justReady ? samples.aJustReady : samples.a).push(await timeAnswer(discord, person, `Ping new ${i}`));
    }
    phases.lap("(a)");
    // A live thread, with the machine quiet: the next spare has booted. An answer first, untimed:
    // while the spare booted, the thread's agent may have idled out.
    await until(spareFree, `a spare ${cli.label} process`, ANSWER_TIMEOUT_MS, 20);
    await timeAnswer(discord, person, "Ping warm-up");
    // The idle-out each (c) waits for comes after the prompt before it (it may come while that answer settles).
    let idledBefore = 0;
    for (let i = 0; i < scale.live; i++) {
      await sleep(READ_MS);
      idledBefore = count("idle agent host shut down");
      samples.b.push(await timeAnswer(discord, person, `Ping live ${i}`));
    }
    // A reload makes a spare again where none is up: its boot goes while the live thread's agent
    // idles out (on the longer time, set at its last turn), before any (c) is timed.
    phases.lap("(b)");
    await baton.reload(config(IDLE_SHUTDOWN_C_MS));
    await until(spareFree, `a spare ${cli.label} process`, ANSWER_TIMEOUT_MS, 20);
    // Without typing and with it in turn, while both have samples to take.
    const typings = [...Array(Math.max(scale.idledTyping, scale.idledNoTyping)).keys()].flatMap((i) => [...(i < scale.idledNoTyping ? [false] : []), ...(i < scale.idledTyping ? [true] : [])]);
    for (const [i, typing] of typings.entries()) {
      await until(() => count("idle agent host shut down") > idledBefore, `${cli.label}'s host to idle out`, IDLE_SHUTDOWN_MS * 4, 20);
      if (typing) {
        discord.typing(person, discord.dmChannel(person));
        await sleep(TYPING_LEAD_MS);
      }
      idledBefore = count("idle agent host shut down");
      (typing ? samples.cTyping : samples.c).push(await timeAnswer(discord, person, `Ping idled ${i}`));
    }
    phases.lap("(c)");
    if (DEBUG_FILE) {
      writeDebug(`${DEBUG_FILE}.${cli.kind}`, baton, discord, cli.fake(box));
      const claudeDebug = join(box.claudeDir, "debug");
      // Its `latest` is a link into the folder itself: the logs alone.
      if (existsSync(claudeDebug)) cpSync(claudeDebug, `${DEBUG_FILE}.claude-debug`, { recursive: true, force: true, filter: (src) => !lstatSync(src).isSymbolicLink() });
    }
    return samples;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${baton.output()}`);
  } finally {
    await baton.stop();
    await fakes.close();
    phases.lap("Baton's stop");
  }
}

/** Where a CLI's part of the suite spends its time, for whoever shortens it next. */
class Phases {
  private readonly laps: Array<[string, number]> = [];
  private from = performance.now();

  lap(name: string): void {
    const now = performance.now();
    this.laps.push([name, now - this.from]);
    this.from = now;
  }

  summary(): string {
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    return `${s(this.laps.reduce((sum, [, ms]) => sum + ms, 0))} in all: ${this.laps.map(([name, ms]) => `${name} ${s(ms)}`).join(", ")}`;
  }
}

/** BENCH_REAL_AGENTS_DEBUG: where to write what happened, per CLI. */
const DEBUG_FILE = process.env.BENCH_REAL_AGENTS_DEBUG;
/** When each prompt was written (for DEBUG_FILE). */
const sends: string[] = [];

/** Baton's log, the Discord calls, the prompts and the model requests, each line with its time, for a person to line up. */
function writeDebug(file: string, baton: BatonProcess, discord: FakeDiscord, model: { brain: { requests: Array<{ at: number; path: string; conversation?: { lastPrompt: string } }> } }): void {
  const lines = [
    ...baton.logLines.map((l) => `${l.at.toFixed(1)} LOG ${l.text}`),
    ...discord.calls.map((c) => `${c.at} CALL ${c.method} ${c.path} ${JSON.stringify(c.body ?? "").slice(0, 100)}`),
    ...sends.splice(0),
    ...model.brain.requests.map((r) => `${r.at} MODEL ${r.path} ${r.conversation?.lastPrompt ?? "(side)"}`),
  ];
  writeFileSync(file, `${lines.join("\n")}\n`);
}

/** Writes `text` into the person's DM; ms until a bot message there first shows "Pong" (both at the fake). Returns once the turn settled. */
async function timeAnswer(discord: FakeDiscord, person: ReturnType<FakeDiscord["addUser"]>, text: string): Promise<number> {
  const dm = discord.dmChannel(person);
  const from = discord.calls.length;
  const shown = () =>
    discord.calls.slice(from).filter((c) => c.params.channel === dm.id && c.status < 400 && (c.method === "POST" || c.method === "PATCH") && c.route.startsWith("/channels/:channel/messages"));
  const sent = Date.now();
  sends.push(`${sent} SEND ${text}`);
  discord.say(person, dm, text);
  const answer = await until(() => shown().find((c) => visibleText(c.body?.content ?? "").includes("Pong")), `the answer to "${text}"`, ANSWER_TIMEOUT_MS, 1);
  let calls = shown().length;
  for (;;) {
    await sleep(SETTLED_MS);
    if (shown().length === calls) break;
    calls = shown().length;
  }
  return answer.at - sent;
}
