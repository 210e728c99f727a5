// Baton's bundled demo agent: a real ACP agent on stdio, built on the SDK's agent side. It lets a
// newcomer try Baton with no agent CLI installed and lets tests drive every path of the
// supervisor through a real process. Prompts starting with `demo:` trigger test behaviour
// (`demo:read` reads the files sent with it; subagents.ts has `demo:subagents` and the subagent side).
import { Readable, Writable } from "node:stream";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { DemoSessionStore, demoDataDir, demoSessionsDir } from "./store.js";
import { describeBlock, longMarkdown, NO_AGENT_NOTICE } from "./texts.js";
import { askPermission } from "./permissions.js";
import { scriptedTurn } from "./scripted.js";
import { chunk, say, update, type Turn } from "./turn.js";
import { TIMING_FILE_ENV, TimingReporter } from "./bench.js";
import { loadTurn } from "./load.js";
import { mcpToolCaller } from "./mcp.js";
import { hostTurn, isHostSubagentCommand, isSubagentPrompt, subagentTurn, type DemoTurn } from "./subagents.js";
import { answerSettingRequests, DemoExtras, mediaAnswer } from "./extras.js";
import { sleep } from "./sleep.js";

const SLOW_TOTAL_MS = 30_000;
const SLOW_TICK_MS = 500;

export function runDemoAgent(env: NodeJS.ProcessEnv = process.env): acp.AgentConnection {
  const store = new DemoSessionStore(demoSessionsDir(demoDataDir(env)));
  const running = new Map<string, AbortController>();
  /** The MCP servers each session was given (new, load and resume each give them afresh). */
  const mcpServers = new Map<string, acp.McpServer[]>();
  // Tests of start time-outs: never answer this step (initialize, or every way to open a session).
  const hang = env.BATON_DEMO_HANG;
  const never = () => new Promise<never>(() => undefined);
  const timing = env[TIMING_FILE_ENV] ? new TimingReporter(env[TIMING_FILE_ENV]) : undefined;
  const extras = new DemoExtras(env.BATON_DEMO_NO_SETTINGS === "1" ? "nothing" : env.BATON_DEMO_LEGACY_MODELS === "1" ? "legacy-models" : "settings");
  const cwds = new Map<string, string>();
  // Stands in for an agent whose resume fails although its store still holds the session.
  const failResume = env.BATON_DEMO_FAIL_RESUME === "1";
  // Stands in for an agent that replays a loaded session's history after answering session/load.
  const lateReplay = env.BATON_DEMO_LATE_REPLAY === "1";

  const app = answerSettingRequests(acp.agent({ name: "baton-demo" }), extras)
    .onRequest(acp.methods.agent.initialize, async () => ({ ...(hang === "initialize" ? await never() : {}), ...initializeAnswer(env) }))
    .onRequest(acp.methods.agent.authenticate, () => ({}))
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      if (hang === "session") await never();
      const sessionId = randomUUID();
      store.create(sessionId, params.cwd);
      mcpServers.set(sessionId, params.mcpServers);
      cwds.set(sessionId, params.cwd);
      return { sessionId, ...extras.advertise(sessionId) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      if (hang === "session") await never();
      if (!store.exists(params.sessionId) || failResume) throw acp.RequestError.sessionNotFound(params.sessionId);
      mcpServers.set(params.sessionId, params.mcpServers);
      // session/load replays the conversation before it answers (or, as some agents do, after).
      const replay = async () => {
        for (const line of store.read(params.sessionId)) {
          if (line.type === "prompt") await update(client, params.sessionId, { sessionUpdate: "user_message_chunk", content: { type: "text", text: line.text } });
          if (line.type === "reply") await update(client, params.sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: line.text } });
        }
      };
      if (lateReplay) setTimeout(() => void replay(), 20);
      else await replay();
      cwds.set(params.sessionId, params.cwd);
      return extras.advertise(params.sessionId);
    })
    .onRequest(acp.methods.agent.session.resume, async ({ params }) => {
      if (hang === "session") await never();
      if (!store.exists(params.sessionId) || failResume) throw acp.RequestError.sessionNotFound(params.sessionId);
      mcpServers.set(params.sessionId, params.mcpServers ?? []);
      cwds.set(params.sessionId, params.cwd);
      return extras.advertise(params.sessionId);
    })
    .onRequest(acp.methods.agent.session.list, ({ params }) => ({
      sessions: store.list(params.cwd ?? undefined).map((s) => ({ sessionId: s.sessionId, cwd: s.cwd, title: s.title, updatedAt: s.updatedAt })),
    }))
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      running.get(params.sessionId)?.abort();
    })
    .onRequest(acp.methods.agent.session.prompt, ({ params, client }) => answerPrompt({ env, store, running, mcpServers, cwds, timing, extras }, params, client));

  timing?.tap(process.stdin);
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  return app.connect(stream);
}

/**
 * initialize: what the demo agent can do, as the environment of a test narrows it. BATON_DEMO_NO_RESUME
 * and BATON_DEMO_NO_LOAD together stand in for an agent that cannot open an earlier session at all.
 */
function initializeAnswer(env: NodeJS.ProcessEnv) {
  const advertiseResume = env.BATON_DEMO_NO_RESUME !== "1";
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: env.BATON_DEMO_NO_LOAD !== "1",
      promptCapabilities: { image: env.BATON_DEMO_IMAGES === "1", audio: env.BATON_DEMO_AUDIO === "1", embeddedContext: env.BATON_DEMO_EMBEDDED !== "0" },
      sessionCapabilities: { list: {}, ...(advertiseResume ? { resume: {} } : {}) },
      mcpCapabilities: { http: env.BATON_DEMO_NO_MCP_HTTP !== "1" },
    },
    agentInfo: { name: "baton-demo", title: "Baton demo agent", version: "1" },
    authMethods: [],
  };
}

/** What the demo agent keeps across its sessions' turns. */
interface DemoAgent {
  env: NodeJS.ProcessEnv;
  store: DemoSessionStore;
  /** Each running turn's abort, by session (session/cancel). */
  running: Map<string, AbortController>;
  mcpServers: Map<string, acp.McpServer[]>;
  cwds: Map<string, string>;
  timing?: TimingReporter;
  extras: DemoExtras;
}

/** session/prompt: the turn for the prompt's text, recorded in the session's store. */
async function answerPrompt(agent: DemoAgent, params: acp.PromptRequest, client: acp.AgentContext) {
  const { env, store, running, mcpServers, cwds, timing, extras } = agent;
  const sessionId = params.sessionId;
  if (!store.exists(sessionId)) throw acp.RequestError.sessionNotFound(sessionId);
  const text = params.prompt.map(describeBlock).join(" ").trim();
  const history = store.read(sessionId);
  const earlier = history.filter((l) => l.type === "prompt").map((l) => (l as { text: string }).text);
  store.append(sessionId, { type: "prompt", text, at: new Date().toISOString() });
  const abort = new AbortController();
  running.set(sessionId, abort);
  const turn: Turn = {
    client,
    sessionId,
    signal: abort.signal,
    replied: [],
    store,
    firstChunk: timing && (() => timing.firstChunk(text)),
    streamEnded: timing && (() => timing.streamEnded(text)),
  };
  try {
    if (earlier.length === 0 && env.BATON_DEMO_NOTICE === "1") await say(turn, `${NO_AGENT_NOTICE}\n\n`);
    const media = mediaAnswer(text, cwds.get(sessionId) ?? process.cwd(), extras.state(sessionId));
    if (media?.update) await update(client, sessionId, media.update);
    const stopReason = media
      ? (await say(turn, media.say, 1), "end_turn" as const)
      : text.startsWith("demo:read")
        ? await readFiles(turn, params.prompt)
        : isSubagentPrompt(text)
          ? await subagentTurn(demoTurn(turn), text)
          : isHostSubagentCommand(text)
            ? await hostTurn(demoTurn(turn), text, mcpToolCaller(mcpServers.get(sessionId) ?? []))
            : await respond(turn, text, earlier);
    const usage = await extras.turnEnded(client, sessionId, text, turn.replied.join(""));
    return { stopReason, usage };
  } finally {
    running.delete(sessionId);
    if (turn.replied.length > 0) store.append(sessionId, { type: "reply", text: turn.replied.join(""), at: new Date().toISOString() });
  }
}

async function respond(turn: Turn, text: string, earlier: string[]): Promise<acp.StopReason> {
  const command = text.toLowerCase();
  if (command === "recall") {
    const list = earlier.length === 0 ? "Nothing yet: this is the first prompt of the session." : earlier.map((p, i) => `${i + 1}. ${p}`).join("\n");
    await say(turn, `Earlier prompts of session ${turn.sessionId}:\n${list}`);
    return "end_turn";
  }
  const slow = /^demo:slow(?: (\d+))?$/.exec(command);
  if (slow) return slowTurn(turn, slow[1] ? Number(slow[1]) * 1000 : SLOW_TOTAL_MS);
  // `demo:long` is about 20 KB of markdown; `demo:long 6` about 6 KB.
  const long = /^demo:long(?:\s+(\d+))?$/.exec(command);
  if (long) {
    await say(turn, longMarkdown(long[1] ? Number(long[1]) * 1024 : undefined), 8);
    return "end_turn";
  }
  const load = await loadTurn({ ...turn, chunk: (piece) => chunk(turn, piece) }, command);
  if (load) return load;
  const scripted = await scriptedTurn(turn, command);
  if (scripted) return scripted;
  await say(turn, `Turn ${earlier.length + 1} of session ${turn.sessionId}: you said "${text}"`);
  return "end_turn";
}

/** `demo:read` with files: reads each linked file where the agent runs, as an agent's read tool would. */
async function readFiles(turn: Turn, prompt: acp.ContentBlock[]): Promise<acp.StopReason> {
  const lines = prompt.flatMap((b) => {
    if (b.type !== "resource_link" || !b.uri.startsWith("file://")) return [];
    const path = fileURLToPath(b.uri);
    try {
      return [`Read ${path}: ${readFileSync(path, "utf8").trim()}`];
    } catch (error) {
      return [`Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`];
    }
  });
  await say(turn, lines.length > 0 ? lines.join("\n") : "No file to read.", 1);
  return "end_turn";
}

/** `demo:slow [seconds]`: a step every half second for that long (30 s by default), then "Done". */
async function slowTurn(turn: Turn, totalMs: number): Promise<acp.StopReason> {
  const started = Date.now();
  let tick = 0;
  while (Date.now() - started < totalMs) {
    if (turn.signal.aborted) return "cancelled";
    await say(turn, `Working… step ${++tick}\n`, 1);
    await sleep(SLOW_TICK_MS, turn.signal);
  }
  await say(turn, `Done after ${tick} steps.`, 1);
  return "end_turn";
}

/** What the subagent commands may do in a turn. */
function demoTurn(turn: Turn): DemoTurn {
  let tools = 0;
  const meta = turn.store.read(turn.sessionId)[0];
  return {
    say: (text) => say(turn, text, 1),
    signal: turn.signal,
    cwd: meta?.type === "meta" ? meta.cwd : process.cwd(),
    permission: (command) => askPermission(turn.client, turn.sessionId, `perm-${++tools}`, command),
    async tool(title, kind, work, content) {
      const toolCallId = `tool-${++tools}`;
      await update(turn.client, turn.sessionId, { sessionUpdate: "tool_call", toolCallId, title, kind, status: "in_progress" });
      try {
        const result = await work();
        await update(turn.client, turn.sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed", content });
        return result;
      } catch (error) {
        await update(turn.client, turn.sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
        throw error;
      }
    },
  };
}
