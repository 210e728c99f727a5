// One turn's output, fanned out to every route attached to the thread: the streamed blocks,
// approvals, the typing indicator, and the closing notice (stopped, crashed, refused).
import type { RequestPermissionRequest, RequestPermissionResponse, SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import type { ApprovalBroker } from "./approvals.js";
import type { TurnOutput } from "../agents/supervisor.js";
import type { PlatformLogger } from "../platforms/contract.js";
import { TurnStream, type RouteTarget, type StreamSettings } from "./stream.js";

const DEFAULT_TYPING_INTERVAL_MS = 4_000;

const STOP_NOTICES: Partial<Record<StopReason, string>> = {
  cancelled: "⏹ Stopped.",
  max_tokens: "⚠️ The agent stopped: it reached its token limit.",
  max_turn_requests: "⚠️ The agent stopped: it reached its limit of requests for one turn.",
  refusal: "⚠️ The agent refused to continue.",
};

export class ChatTurn implements TurnOutput {
  private readonly stream: TurnStream;
  private readonly typingTimers: NodeJS.Timeout[] = [];
  private readonly statusRoutes: RouteTarget[] = [];

  constructor(
    private readonly threadId: string,
    private readonly targets: () => RouteTarget[],
    settings: StreamSettings,
    private readonly approvals: ApprovalBroker,
    private readonly log: PlatformLogger,
    private readonly promptMessageId: (route: string) => string | undefined = () => undefined,
  ) {
    this.stream = new TurnStream(targets, settings, log);
    for (const target of targets()) {
      const { adapter, route } = target;
      if (adapter.capabilities.typing && adapter.typing) {
        const beat = () => void adapter.typing!(route).catch(() => undefined);
        beat();
        const timer = setInterval(beat, adapter.capabilities.typingIntervalMs ?? DEFAULT_TYPING_INTERVAL_MS);
        timer.unref();
        this.typingTimers.push(timer);
      }
      if (adapter.turnStatus) {
        this.statusRoutes.push(target);
        void adapter.turnStatus(route, "running", promptMessageId(route)).catch(() => undefined);
      }
    }
  }

  update(update: SessionUpdate): void {
    this.stream.update(update);
  }

  requestPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    return this.approvals.request(this.threadId, request, this.stream);
  }

  notice(text: string): void {
    this.stream.builder.appendNotice(text);
  }

  pendingApprovals(): number {
    return this.approvals.pendingCount(this.threadId);
  }

  cancelApprovals(): Promise<void> {
    return this.approvals.cancelThread(this.threadId);
  }

  async finish(outcome: { stopReason?: StopReason; error?: string }): Promise<void> {
    for (const t of this.typingTimers) clearInterval(t);
    const notice = outcome.error ?? (outcome.stopReason ? STOP_NOTICES[outcome.stopReason] : undefined);
    try {
      await this.stream.finish(notice);
    } catch (error) {
      this.log.error({ thread: this.threadId, err: error }, "could not deliver the end of a turn");
    }
    for (const { adapter, route } of this.statusRoutes) {
      await adapter.turnStatus!(route, "idle", this.promptMessageId(route)).catch(() => undefined);
    }
  }
}
