// Files into a Slack conversation: files.uploadV2 of the Web API client, which is Slack's upload
// flow (files.getUploadURLExternal, the bytes to the URL it gives, files.completeUploadExternal
// sharing the file into the channel or thread with the caption as its comment). The whole flow
// is the one platform call: a failed step fails it, and the core may retry it from the start.
import type { MessageRef, OutboundFile } from "../contract.js";
import { PlatformError } from "../../kernel/errors.js";
import { slackErrorCode, toPlatformError, type SlackApi } from "./api.js";
import { markdownToMrkdwn } from "./mrkdwn.js";
import type { SlackRoute } from "./routes.js";

/** Slack takes files up to 1 GB; Baton's own cap (files.max_upload_bytes) is far below. */
export const SLACK_MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;

interface UploadAnswer {
  files?: Array<{ files?: Array<{ id?: string }> }>;
}

export async function uploadFile(api: SlackApi, target: SlackRoute, file: OutboundFile): Promise<MessageRef> {
  const comment = file.caption?.trim() ? (file.format === "plain" ? file.caption : markdownToMrkdwn(file.caption)) : undefined;
  try {
    const answer = (await api.client.filesUploadV2({
      channel_id: target.channel,
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      file: file.path,
      filename: file.name,
      title: file.name,
      ...(comment ? { initial_comment: comment } : {}),
      // The SDK's argument union wants thread_ts typed apart from a channel-only upload; one object serves both.
    } as Parameters<SlackApi["client"]["filesUploadV2"]>[0])) as UploadAnswer;
    return { id: answer.files?.[0]?.files?.[0]?.id ?? "" };
  } catch (error) {
    if (slackErrorCode(error) === "missing_scope") {
      throw new PlatformError("Slack refused the upload: the app lacks the files:write scope. Add it (see docs/slack-manifest.yaml) and reinstall the app.", { reason: "refused", cause: error });
    }
    throw toPlatformError("files.uploadV2", error);
  }
}
