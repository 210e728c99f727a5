// One turn's output, fanned out to every route attached to the thread: the streamed blocks,
// approvals, the typing indicator, and the closing notice (stopped, crashed, refused).
import { randomBase64url } from "../kernel/random-ids.js";
import type { RequestPermissionRequest, RequestPermissionResponse, SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import type { TurnOutput } from "../agents/supervisor.js";
import type { PlatformLogger, PlatformUser } from "../platforms/contract.js";
import { askedFor, CANCELLED, expired, type ApprovalBroker, type ApprovalTurn } from "./approvals.js";
import type { Metrics } from "../kernel/metrics.js";
import { TurnStream, type RouteTarget, type StreamSettings } from "./stream.js";
import type { PromptTokens } from "../agents/usage.js";
import { TurnExtras, type TurnExtrasOptions } from "./turn-extras.js";

const STOP_NOTICES: Partial<Record<StopReason, string>> = {
  cancelled: "⏹ Stopped.",
  max_tokens: "⚠️ The agent stopped: it reached its token limit.",
  max_turn_requests: "⚠️ The agent stopped: it reached its limit of requests for one turn.",
  refusal: "⚠️ The agent refused to continue.",
};

export class ChatTurn implements TurnOutput {
  private readonly stream: TurnStream;
  private readonly typingReleases: Array<() => void> = [];
  private readonly statusRoutes: RouteTarget[] = [];
  private readonly approvalTurn: ApprovalTurn;
  private readonly extras?: TurnExtras;
  private readonly indicators: NodeJS.Immediate;
  /** Baton cancelled the turn (/stop, a shutdown, the host replaced): a "cancelled" end is that. */
  private stopAsked = false;
  /** What the last rejected request asked for: an agent that then ends its turn "cancelled" ended it over that. */
  private rejected?: string;
  /** The agent wrote text after that rejection (then it said itself why it stopped). */
  private spokeSinceRejection = false;

  constructor(
    private readonly threadId: string,
    targets: () => RouteTarget[],
    settings: StreamSettings,
    private readonly approvals: ApprovalBroker,
    private readonly log: PlatformLogger,
    private readonly promptMessageId: (route: string) => string | undefined = () => undefined,
    /** `ended` as the agent's turn ends; `delivered` once its end has reached the chats (or failed to). */
    private readonly lifecycle: { ended(): void; delivered(): void } = { ended: () => undefined, delivered: () => undefined },
    extras?: TurnExtrasOptions,
    /** Whose prompt started the turn (who may answer its approvals and stop it). */
    readonly requester?: PlatformUser,
  ) {
    this.stream = new TurnStream(targets, settings, log);
    if (extras) this.extras = new TurnExtras(extras, this.stream);
    this.approvalTurn = { id: randomBase64url(6), threadId, stream: this.stream, requester };
    // After the prompt is on its way: the indicators are HTTP calls, and a new message's path to
    // the agent should not wait for them (under load they were a good part of that path's time).
    this.indicators = setImmediate(() => this.showRunning(targets()));
  }

  private showRunning(targets: RouteTarget[]): void {
    for (const target of targets) {
      const { outbox, route } = target;
      this.typingReleases.push(outbox.keepTyping(route));
      if (outbox.adapter.turnStatus) {
        this.statusRoutes.push(target);
        void outbox.adapter.turnStatus(route, "running", this.promptMessageId(route)).catch(() => undefined);
      }
    }
  }

  update(update: SessionUpdate): void {
    if (update.sessionUpdate === "agent_message_chunk") this.spokeSinceRejection = true;
    if (this.extras?.take(update)) return;
    this.stream.update(update);
  }

  async requestPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const response = await this.approvals.request(this.approvalTurn, request);
    const { outcome } = response;
    const chosen = outcome.outcome === "selected" ? request.options.find((o) => o.optionId === outcome.optionId) : undefined;
    if (chosen?.kind.startsWith("reject")) {
      this.rejected = askedFor(request);
      this.spokeSinceRejection = false;
    } else if (chosen) this.rejected = undefined; // it went on to something allowed
    return response;
  }

  /** Sends what the agent streamed so far (before something else is posted beside the turn). */
  flush(): void {
    this.stream.flush();
  }

  notice(text: string): void {
    this.stream.builder.appendNotice(text);
  }

  pendingApprovals(): number {
    return this.approvals.pendingCount(this.threadId);
  }

  cancelApprovals(): void {
    this.stopAsked = true;
    this.approvals.endTurn(this.approvalTurn.id, CANCELLED);
  }

  async finish(outcome: { stopReason?: StopReason; error?: string; usage?: PromptTokens }): Promise<void> {
    this.lifecycle.ended();
    clearImmediate(this.indicators);
    for (const release of this.typingReleases.splice(0)) release();
    // A request still open when its turn ends can never be answered: say so where it was asked.
    this.approvals.endTurn(this.approvalTurn.id, expired("the turn ended before an answer"));
    const notice = outcome.error ?? this.stopNotice(outcome.stopReason);
    try {
      // The agent's files go before the closing notice and the usage line.
      await this.extras?.filesSent();
      const usage = this.extras?.usage(outcome.usage);
      // Recorded before it shows, so /status right after it counts this turn.
      await usage?.recorded;
      // The usage line ends the answer's last message, in the call that completes it.
      await this.stream.finish(notice, usage?.line);
    } catch (error) {
      this.log.error({ thread: this.threadId, err: error }, "could not deliver the end of a turn");
    }
    this.lifecycle.delivered();
    for (const { outbox, route } of this.statusRoutes) {
      await outbox.adapter.turnStatus!(route, "idle", this.promptMessageId(route)).catch(() => undefined);
    }
  }

  /**
   * Why the turn stopped, where that is news. Some agents end the whole turn when a person rejects
   * a command: Codex "cancelled", as if Baton had asked them to stop; OpenCode and Qwen Code
   * "end_turn" without a word. Either way the chat says what happened.
   */
  private stopNotice(stopReason: StopReason | undefined): string | undefined {
    const endedOverRejection = stopReason === "cancelled" || (stopReason === "end_turn" && !this.spokeSinceRejection);
    if (endedOverRejection && !this.stopAsked && this.rejected) return `🚫 Rejected: ${this.rejected} — the agent stopped this turn`;
    return stopReason ? STOP_NOTICES[stopReason] : undefined;
  }
}

/** The same turn, counted: how long it ran and how it ended go to the metrics when it finishes. */
export function meteredTurn(turn: TurnOutput, agent: string, metrics: Metrics): TurnOutput {
  const started = performance.now();
  return withFinish(turn, (outcome) => {
    metrics.turnFinished(agent, outcome.error ? "error" : (outcome.stopReason ?? "end_turn"), (performance.now() - started) / 1000);
    return turn.finish(outcome);
  });
}

/** The same turn, everything passed through but its end, which `finish` now does (calling the turn's own). */
export function withFinish(turn: TurnOutput, finish: TurnOutput["finish"]): TurnOutput {
  return {
    update: (update) => turn.update(update),
    requestPermission: (request) => turn.requestPermission(request),
    notice: (text) => turn.notice(text),
    cancelApprovals: () => turn.cancelApprovals(),
    pendingApprovals: () => turn.pendingApprovals(),
    finish,
  };
}
