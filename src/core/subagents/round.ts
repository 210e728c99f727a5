// One round of one subagent: a fresh agent process, its session opened (new, or resumed from the
// last round or from before a restart), one prompt, and what came of it: the final message, the
// files its tools changed, the session id. The process stops when the round ends, so a subagent
// waiting for the next round or for others holds no slot.
import type { SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import { AgentHost, HostStoppedError, type OpenedSession } from "../../agents/host.js";
import type { LaunchSpec, McpAccess } from "../../agents/supervisor.js";
import type { Logger } from "../../kernel/log.js";
import { CANCELLED, expired, type ApprovalBroker, type ApprovalTurn } from "../approvals.js";
import type { PromptTokens } from "../../agents/usage.js";

export interface RoundInput {
  spec: LaunchSpec;
  /** The session to resume; a new one when undefined. */
  session?: string;
  prompt: string;
  mcp(agent: { http: boolean }): Promise<McpAccess>;
  /** A place among the few agent starts allowed at once (agent CLIs are heavy to boot). */
  startSlot(): Promise<() => void>;
  approvals: ApprovalBroker;
  approvalTurn: ApprovalTurn;
  /** Called as soon as the session is open (recorded before the prompt, so a restart can resume it). */
  onSession(opened: OpenedSession): Promise<void>;
  onTool(title: string): void;
  log: Logger;
}

export interface RoundResult {
  stopReason: StopReason;
  /** What the agent reported: the prompt's tokens and its session's running cost (limits per person count them). */
  usage: { tokens?: PromptTokens; cost?: { amount: number; currency: string } };
  /** The agent's last words: its text after its last tool call (all of its text when that is empty). */
  message: string;
  files: string[];
}

const FILE_TOOL_KINDS = new Set(["edit", "delete", "move"]);

export class SubagentRound {
  private host?: AgentHost;
  private cancelled = false;
  private readonly allText: string[] = [];
  private lastText: string[] = [];
  private readonly files = new Set<string>();
  private readonly tools = new Map<string, { title?: string; kind?: string }>();
  private cost?: { amount: number; currency: string };

  constructor(private readonly input: RoundInput) {}

  async run(): Promise<RoundResult> {
    const { input } = this;
    const host = new AgentHost({
      ...input.spec,
      sink: {
        onUpdate: (update, replay) => {
          if (!replay) this.observe(update);
        },
        requestPermission: (request) => {
          if (this.cancelled || request.sessionId !== host.sessionId) return Promise.resolve({ outcome: { outcome: "cancelled" } });
          return input.approvals.request(input.approvalTurn, request);
        },
        onExit: ({ code, signal, expected }) => {
          if (!expected) input.log.warn({ code, signal, subagent: input.approvalTurn.label }, "subagent process exited");
        },
      },
    });
    this.host = host;
    let access: McpAccess | undefined;
    try {
      if (this.cancelled) throw new HostStoppedError();
      const started = await input.startSlot();
      let opened: OpenedSession;
      try {
        await host.start();
        access = await input.mcp({ http: host.supportsMcpHttp });
        opened = await host.openSession(input.session, access.servers);
      } finally {
        started();
      }
      await input.onSession(opened);
      if (this.cancelled) throw new HostStoppedError();
      const stopReason = await host.prompt([{ type: "text", text: input.prompt }]);
      const last = this.lastText.join("").trim();
      return { stopReason: this.cancelled ? "cancelled" : stopReason, message: last || this.allText.join("").trim(), files: [...this.files], usage: this.usage() };
    } catch (error) {
      if (this.cancelled) return { stopReason: "cancelled", message: this.allText.join("").trim(), files: [...this.files], usage: this.usage() };
      throw error;
    } finally {
      input.approvals.endTurn(input.approvalTurn.id, this.cancelled ? CANCELLED : expired("the subagent's turn ended before an answer"));
      await host.stop();
      access?.release();
    }
  }

  /** Cancels the round: the agent is asked to stop (ACP session/cancel), then its process ends. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.input.approvals.endTurn(this.input.approvalTurn.id, CANCELLED);
    const host = this.host;
    if (!host) return;
    host.cancel();
    void host.stop();
  }

  private usage(): RoundResult["usage"] {
    return { tokens: this.host?.lastPromptUsage, cost: this.cost };
  }

  private observe(update: SessionUpdate): void {
    if (update.sessionUpdate === "usage_update") {
      this.cost = update.cost ?? this.cost;
      return;
    }
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
      this.allText.push(update.content.text);
      this.lastText.push(update.content.text);
      return;
    }
    if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") return;
    if (update.sessionUpdate === "tool_call") this.lastText = [];
    const known = this.tools.get(update.toolCallId) ?? {};
    const tool = { title: update.title ?? known.title, kind: update.kind ?? known.kind };
    this.tools.set(update.toolCallId, tool);
    if (tool.title) this.input.onTool(tool.title);
    for (const c of update.content ?? []) if (c.type === "diff") this.files.add(c.path);
    if (tool.kind && FILE_TOOL_KINDS.has(tool.kind)) for (const l of update.locations ?? []) this.files.add(l.path);
  }
}
