// What a turn carries besides its streamed text: images and files in the agent's answer (uploaded
// to every route, only from inside the thread's workspace) and the usage it reports (one quiet line
// at the end of the answer, recorded on the thread for /status).
import type { ContentBlock, SessionUpdate } from "@agentclientprotocol/sdk";
import { fileURLToPath } from "node:url";
import type { ContextUsage, PromptTokens } from "../agents/usage.js";
import { FileRefusedError, userMessageOf } from "../kernel/errors.js";
import type { OutboundMessage, PlatformLogger } from "../platforms/contract.js";
import type { TurnUsage } from "../threads/chat-state.js";
import type { OutboundFiles, StagedFile } from "./outfiles.js";
import { megabytes } from "../render/sizes.js";
import type { TurnStream } from "./stream.js";
import { formatUsageLine } from "./usage.js";

export interface TurnExtrasOptions {
  /** The thread's workspace, which file links must stay inside. */
  workspace: string;
  files: OutboundFiles;
  showUsage: boolean;
  recordUsage(usage: TurnUsage): Promise<void>;
  log: PlatformLogger;
}

export class TurnExtras {
  private context?: ContextUsage;
  /** Files of the turn, one after another, so they arrive in the order the agent sent them. */
  private files: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: TurnExtrasOptions,
    private readonly stream: TurnStream,
  ) {}

  /** Takes the updates that are not streamed text; true when this one was taken. */
  take(update: SessionUpdate): boolean {
    if (update.sessionUpdate === "usage_update") {
      this.context = { used: update.used, size: update.size, cost: update.cost };
      return true;
    }
    if (update.sessionUpdate !== "agent_message_chunk") return false;
    const content = update.content;
    if (content.type === "text") return false;
    if (content.type === "resource_link" && !content.uri.startsWith("file://")) {
      this.stream.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n🔗 [${content.title ?? content.name}](${content.uri})\n` } });
      return true;
    }
    if (content.type === "image" || content.type === "resource" || content.type === "resource_link") {
      const release = this.stream.hold();
      this.files = this.files.then(() => this.deliver(content)).finally(release);
      return true;
    }
    return false;
  }

  /** Resolves once every file of the turn so far is in the chats (or given up). */
  filesSent(): Promise<void> {
    return this.files;
  }

  /**
   * The turn's usage: recorded on the thread (the promise), and the line to show at the end of the
   * answer (undefined when the agent reported none or the line is turned off).
   */
  usage(tokens: PromptTokens | undefined): { line?: string; recorded: Promise<void> } {
    if (!tokens && !this.context) return { recorded: Promise.resolve() };
    const usage: TurnUsage = {
      inputTokens: tokens?.inputTokens,
      outputTokens: tokens?.outputTokens,
      totalTokens: tokens?.totalTokens,
      cost: this.context?.cost ?? undefined,
      context: this.context ? { used: this.context.used, size: this.context.size } : undefined,
    };
    const recorded = this.options.recordUsage(usage).catch((error: unknown) => this.options.log.warn({ err: error }, "could not record a turn's usage"));
    return { line: this.options.showUsage ? formatUsageLine(usage) : undefined, recorded };
  }

  private async deliver(content: Exclude<ContentBlock, { type: "text" }>): Promise<void> {
    let file: StagedFile | undefined;
    try {
      file = await this.stage(content);
      if (!file) return;
      const staged = file;
      const posted = await this.stream.postFile(staged, (target) => {
        const max = target.outbox.adapter.capabilities.maxUploadBytes;
        if (max === undefined || staged.size <= max) return undefined;
        return { text: `📎 ${staged.name} (${megabytes(staged.size)}) is larger than this chat takes (${megabytes(max)}).`, kind: "notice" } satisfies OutboundMessage;
      });
      // Where the platform refused the upload, that chat hears why.
      for (const { outbox, route, slot } of posted) {
        if (slot.failed) outbox.post(route, { text: `⚠️ Could not post ${staged.name}: ${userMessageOf(slot.error)}`, kind: "notice" });
      }
    } catch (error) {
      if (!(error instanceof FileRefusedError)) this.options.log.warn({ err: error }, "could not send a file from the agent");
      this.stream.post({ text: `🚫 Not sent: ${userMessageOf(error)}`, kind: "notice" });
    } finally {
      file?.release();
    }
  }

  private async stage(content: Exclude<ContentBlock, { type: "text" }>): Promise<StagedFile | undefined> {
    const files = this.options.files;
    switch (content.type) {
      case "image":
        return files.fromData(content.uri ? nameOf(content.uri) : undefined, content.mimeType, Buffer.from(content.data, "base64"));
      case "resource_link":
        return files.fromWorkspace(this.options.workspace, fileURLToPath(content.uri));
      case "resource": {
        const r = content.resource;
        const data = "blob" in r ? Buffer.from(r.blob, "base64") : Buffer.from(r.text, "utf8");
        return files.fromData(nameOf(r.uri), r.mimeType ?? undefined, data);
      }
      default:
        return undefined;
    }
  }
}

function nameOf(uri: string): string | undefined {
  const last = uri.split(/[/\\]/).filter(Boolean).at(-1);
  return last ? decodeURIComponent(last.replace(/[?#].*$/, "")) : undefined;
}
