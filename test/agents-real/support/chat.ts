// Baton's real daemon, in-process, with the test platform, driving the real agent CLIs of a
// sandbox. One chat per test; restarts reuse the data dir.
import { startTestBaton, type TestBaton } from "../../support/harness.js";
import { TestPlatform, type RecordedMessage } from "../../support/test-platform.js";
import type { RealKind, Sandbox } from "./sandbox.js";

/** A real agent's turn on a loaded two-core machine: process start, model round trips, tools. */
export const AGENT_TURN_MS = 90_000;

export class Chat {
  readonly route: string;

  private constructor(
    readonly box: Sandbox,
    readonly baton: TestBaton,
    readonly platform: TestPlatform,
    readonly workspace: string,
    routeName: string,
  ) {
    this.route = platform.route(routeName);
  }

  static async start(box: Sandbox, agent: RealKind, workspace: string, opts: { dataDir?: string; route?: string } = {}): Promise<Chat> {
    const platform = new TestPlatform();
    const baton = await startTestBaton({
      adapters: [platform],
      dataDir: opts.dataDir,
      cwd: workspace,
      env: box.env(),
      config: {
        agents: { default: agent },
        workspaces: { roots: [box.root], default: workspace },
      },
    });
    return new Chat(box, baton, platform, workspace, opts.route ?? "chat");
  }

  get core() {
    return this.baton.daemon.core;
  }

  get dataDir(): string {
    return this.baton.dataDir;
  }

  thread() {
    return this.core.registry.threadForRoute(this.route);
  }

  say(text: string): Promise<void> {
    return this.platform.say(this.route, text);
  }

  waitFor(match: RegExp | ((m: RecordedMessage) => boolean), timeoutMs = AGENT_TURN_MS): Promise<RecordedMessage> {
    return this.platform.waitFor(this.route, match, timeoutMs);
  }

  /** Waits until the thread's turns are all done (queue empty, no turn running). */
  async idle(): Promise<void> {
    const thread = this.thread();
    if (thread) await this.core.supervisor.drained(thread.id);
  }

  /** Messages on this route that are approval requests. */
  approvals(): RecordedMessage[] {
    return this.platform.on(this.route).filter((m) => m.kind === "approval");
  }

  /** Waits for approval request number `n` (1-based) and answers it by text (`/allow`, `/deny`). */
  async answerApproval(n: number, answer: "/allow" | "/deny"): Promise<RecordedMessage> {
    await this.waitFor(() => this.approvals().length >= n);
    const request = this.approvals()[n - 1];
    await this.say(answer);
    return request;
  }

  transcript(): string {
    return this.platform.transcript(this.route);
  }

  async stop(): Promise<void> {
    await this.baton.stop();
  }
}
