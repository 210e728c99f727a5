// One ACP agent process serving one thread: spawn → initialize → session new/resume/load → prompts.
// The host is ephemeral; the thread and the agent's own session store outlive it. The process
// itself (spawn, stderr, exit, stop) is agent-process.ts; this file speaks ACP with it.
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import { acpWire } from "./acp-wire.js";
import { loadAgentSdk, type AcpSdk } from "./acp-sdk.js";
import { takeHandCheckedUpdates } from "./session-update-parse.js";
import { AgentError } from "../kernel/errors.js";
import type { IdleClassOutcome } from "../kernel/process.js";
import { lowerAgentPriority } from "./priority.js";
import { AgentProcess, type ProcessExit } from "./agent-process.js";
import { HostExitedError, HostStartTimeoutError, HostStoppedError } from "./host-errors.js";
import { inlineMedia } from "./inline-image.js";
import { resourceAsText } from "./prompt-content.js";
import { SessionSettings, type SettingKind, type SettingsResponse } from "./session-settings.js";
import type { PromptTokens } from "./usage.js";

import { DEFAULT_START_TIMEOUTS, type HostSpec, type OpenedSession, type StartTimeouts } from "./host-types.js";

export { HostStoppedError } from "./host-errors.js";
export * from "./host-types.js";

const AUTH_REQUIRED_CODE = -32000;
const EXIT_SETTLE_MS = 300;
/** After session/load: updates keep counting as replayed history until none came for this long… */
const REPLAY_QUIET_MS = 250;
/** …or this long passed (some agents, Gemini CLI 0.61, replay after answering the load). */
const REPLAY_MAX_MS = 3_000;

export class AgentHost {
  private readonly process: AgentProcess;
  private sdk!: AcpSdk;
  private connection?: acp.ClientConnection;
  private capabilities: acp.AgentCapabilities = {};
  private replaying = false;
  private lastUpdateAt = 0;
  sessionId?: string;
  /** The session's mode and model as the agent advertises them. */
  readonly settings = new SessionSettings();
  /** Token counts the last prompt's answer gave (ACP `usage`, where the agent reports it). */
  lastPromptUsage?: PromptTokens;

  constructor(private readonly spec: HostSpec) {
    this.process = new AgentProcess(spec.kind, (exit) => this.processExited(exit));
  }

  /** Whether agents.nice: idle put the process in the idle scheduling class (undefined: not asked). */
  cpuClass?: IdleClassOutcome;

  get pid(): number | undefined {
    return this.process.pid;
  }

  get alive(): boolean {
    return this.process.alive;
  }

  private get timeouts(): StartTimeouts {
    return this.spec.startTimeouts ?? DEFAULT_START_TIMEOUTS;
  }

  /** Spawns the process and initializes ACP, each step time-boxed (HostStartTimeoutError). */
  async start(): Promise<void> {
    const { command, args, cwd, env, transport } = this.spec;
    const sdk = loadAgentSdk();
    if (this.process.stopping) throw new HostStoppedError();
    const spawned = this.process.spawn({ command, args, cwd: transport?.localCwd ?? cwd, env });
    await this.step("start", this.timeouts.spawnMs, spawned);
    if (this.spec.niceness) this.cpuClass = await lowerAgentPriority(this.process.pid!, this.spec.niceness, this.spec.kind.displayName);
    if (this.process.stopping) throw new HostStoppedError();
    if (transport?.preamble) this.process.stdin.write(transport.preamble);
    this.sdk = await sdk;
    if (this.process.stopping) throw new HostStoppedError();

    const updates = takeHandCheckedUpdates((params) => {
      this.settings.apply(params.update);
      this.lastUpdateAt = Date.now();
      this.spec.sink.onUpdate(params.update, this.replaying);
    });
    const wire = acpWire(this.process.stdout, this.process.stdin, (message) => updates.take(message));
    this.connection = this.sdk
      .client({ name: "baton" })
      .onNotification(this.sdk.methods.client.session.update, ({ params }) => updates.fromSdk(params))
      .onRequest(this.sdk.methods.client.session.requestPermission, ({ params }) => this.spec.sink.requestPermission(params))
      .connect(wire as unknown as acp.Stream);

    const init = await this.step(
      "initialize",
      this.timeouts.initializeMs,
      this.call(() =>
        this.connection!.agent.request(this.sdk.methods.agent.initialize, {
          protocolVersion: this.sdk.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "baton", version: "0.1.0" },
        }),
      ),
    );
    this.capabilities = init.agentCapabilities ?? {};
  }

  get supportsImages(): boolean {
    return !!this.capabilities.promptCapabilities?.image;
  }

  /** The agent can open an earlier session again (session/resume or session/load); else a thread that had one starts over (cannotReopenNote). */
  get canResume(): boolean {
    return !!this.capabilities.sessionCapabilities?.resume || !!this.capabilities.loadSession;
  }

  /** The agent takes MCP servers over HTTP (else only stdio ones). */
  get supportsMcpHttp(): boolean {
    return !!this.capabilities.mcpCapabilities?.http;
  }

  get supportsAudio(): boolean {
    return !!this.capabilities.promptCapabilities?.audio;
  }

  /** Switches the session's mode or model as the agent advertised it; throws AgentError when it refuses. */
  async changeSetting(kind: SettingKind, id: string): Promise<void> {
    const request = this.sessionId ? this.settings.request(kind, this.sessionId, id) : undefined;
    if (!request) throw new AgentError(`${this.spec.kind.displayName} does not let Baton change its ${kind}.`);
    this.settings.expect(kind, id);
    const answer = await this.call(() => this.connection!.agent.request<{ configOptions?: acp.SessionConfigOption[] } | null>(request.method, request.params));
    this.settings.chosen(kind, id, answer ?? undefined);
  }

  /** Opens the thread's session (time-boxed as a whole): resume where advertised, else load (replay hidden from chat), else new. */
  openSession(sessionId: string | undefined, mcpServers: acp.McpServer[] = []): Promise<OpenedSession> {
    const how = !sessionId ? "session/new" : this.capabilities.sessionCapabilities?.resume ? "session/resume" : this.capabilities.loadSession ? "session/load" : "session/new";
    return this.step(how, this.timeouts.sessionMs, this.open(sessionId, mcpServers));
  }

  private async open(sessionId: string | undefined, mcpServers: acp.McpServer[]): Promise<OpenedSession> {
    const cwd = this.spec.cwd;
    if (sessionId) {
      const caps = this.capabilities;
      try {
        if (caps.sessionCapabilities?.resume) {
          this.settings.absorb(await this.call(() => this.connection!.agent.request(this.sdk.methods.agent.session.resume, { sessionId, cwd, mcpServers })));
          this.sessionId = sessionId;
          return { sessionId, how: "resume" };
        }
        if (caps.loadSession) {
          this.replaying = true;
          try {
            this.settings.absorb(await this.call(() => this.connection!.agent.request(this.sdk.methods.agent.session.load, { sessionId, cwd, mcpServers })));
            await this.replayEnded();
          } finally {
            this.replaying = false;
          }
          this.sessionId = sessionId;
          return { sessionId, how: "load" };
        }
      } catch (error) {
        if (error instanceof AgentError && error.fatal) throw error;
        const created = await this.newSession(mcpServers);
        return { sessionId: created, how: "new-after-failed-resume", note: `Could not resume session ${sessionId.slice(0, 8)} (${(error as Error).message}); started a new session.` };
      }
      const created = await this.newSession(mcpServers);
      return { sessionId: created, how: "new-after-failed-resume", note: cannotReopenNote(this.spec.kind.displayName) };
    }
    return { sessionId: await this.newSession(mcpServers), how: "new" };
  }

  /** Waits until replayed history stops arriving: quiet for REPLAY_QUIET_MS, at most REPLAY_MAX_MS. */
  private async replayEnded(): Promise<void> {
    const start = Date.now();
    this.lastUpdateAt = Math.max(this.lastUpdateAt, start);
    while (Date.now() - this.lastUpdateAt < REPLAY_QUIET_MS && Date.now() - start < REPLAY_MAX_MS && this.alive) {
      await new Promise((r) => setTimeout(r, REPLAY_QUIET_MS / 5));
    }
  }

  private async newSession(mcpServers: acp.McpServer[]): Promise<string> {
    const res = await this.call(() => this.connection!.agent.request(this.sdk.methods.agent.session.new, { cwd: this.spec.cwd, mcpServers }));
    this.settings.absorb(res as SettingsResponse);
    this.sessionId = res.sessionId;
    return res.sessionId;
  }

  /** Closes a session this process will not serve (a spare's, when its new owner resumes its own), where the agent can. */
  async closeSession(sessionId: string): Promise<void> {
    if (this.sessionId === sessionId) this.sessionId = undefined;
    if (!this.capabilities.sessionCapabilities?.close || !this.connection || !this.alive) return;
    await this.connection.agent.request(this.sdk.methods.agent.session.close, { sessionId }).catch(() => undefined);
  }

  async prompt(prompt: acp.ContentBlock[]): Promise<acp.StopReason> {
    if (!this.sessionId) throw new Error("prompt before openSession");
    const sessionId = this.sessionId;
    const blocks = await Promise.all(prompt.map((block) => this.prepareBlock(block)));
    this.lastPromptUsage = undefined;
    const res = await this.call(() => this.connection!.agent.request(this.sdk.methods.agent.session.prompt, { sessionId, prompt: blocks }));
    // `usage` is an unstable field of the answer; the stable SDK types do not list it yet.
    this.lastPromptUsage = (res as { usage?: PromptTokens | null }).usage ?? undefined;
    return res.stopReason;
  }

  /** Images go inline to agents that take them; other local files are staged where the agent runs. */
  private async prepareBlock(block: acp.ContentBlock): Promise<acp.ContentBlock> {
    // An embedded resource (a brief) goes as text to agents without embedded-context support.
    if (block.type === "resource") return this.capabilities.promptCapabilities?.embeddedContext ? block : resourceAsText(block);
    const inlined = await inlineMedia(block, { image: this.supportsImages, audio: this.supportsAudio });
    const stage = this.spec.transport?.stageFile;
    if (inlined !== block || !stage || block.type !== "resource_link" || !block.uri.startsWith("file://")) return inlined;
    const there = await stage(fileURLToPath(block.uri), block.name);
    return { ...block, uri: pathToFileURL(there).href };
  }

  cancel(): void {
    if (!this.sessionId || !this.connection || !this.alive) return;
    void this.connection.agent.notify(this.sdk.methods.agent.session.cancel, { sessionId: this.sessionId }).catch(() => {});
  }

  /** Stops the process: the connection closed, then stdin, then SIGTERM, then SIGKILL after a grace period. Ends a start under way. */
  async stop(): Promise<void> {
    if (this.process.alive) this.connection?.close();
    await this.process.stop();
  }

  private processExited(exit: ProcessExit): void {
    this.connection?.close();
    this.spec.sink.onExit({ ...exit, stderr: this.process.stderrForLog(), expected: this.process.stopping });
  }

  /** The last few lines of the agent's stderr, scrubbed and short, for the chat. */
  stderrTail(): string {
    return this.process.stderrTail();
  }

  /** Everything kept of the agent's stderr (bounded, scrubbed), for the log. */
  stderrForLog(): string {
    return this.process.stderrForLog();
  }

  /** A start step that must finish within `limitMs`; past it the start counts as hung. */
  private async step<T>(name: string, limitMs: number, work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HostStartTimeoutError(this.spec.kind.displayName, name, limitMs, this.stderrTail())), limitMs);
    });
    try {
      return await Promise.race([work, hung]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs an ACP request, turning protocol errors into AgentErrors a chat can show. */
  private async call<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (error) {
      if (error instanceof this.sdk.RequestError && error.code === AUTH_REQUIRED_CODE) {
        throw new AgentError(
          `${this.spec.kind.displayName} needs you to log in (${error.message}). Run \`${this.spec.kind.cliCommand ?? this.spec.kind.id}\` once in a terminal on the Baton machine and log in, then send your message again.`,
          { fatal: true, cause: error },
        );
      }
      // A request can fail because the process is dying; its exit event may lag the rejection.
      await Promise.race([this.process.exited, new Promise((r) => setTimeout(r, EXIT_SETTLE_MS))]);
      const { exit } = this.process;
      if (exit && this.process.stopping) throw new HostStoppedError();
      if (exit) throw new HostExitedError(exit.code, this.stderrTail(), this.spec.transport?.describeExit?.(exit.code, this.stderrTail()));
      if (error instanceof this.sdk.RequestError) {
        // Agents put the reason behind a generic "Internal error" in `data.details`.
        const details = (error.data as { details?: unknown } | undefined)?.details;
        const why = typeof details === "string" && details.trim() ? `${error.message}: ${details.trim().split("\n")[0]}` : error.message;
        throw new AgentError(`${this.spec.kind.displayName} refused: ${why}`, { cause: error });
      }
      throw error;
    }
  }
}

/** What the person is told when their thread's agent cannot open its earlier session and a new one starts. */
export function cannotReopenNote(agentName: string): string {
  return `${agentName} cannot resume sessions over ACP; started a new session.`;
}
