// Files into a Telegram chat, one Bot API call each: a photo Telegram can show inline goes with
// sendPhoto, anything else with sendDocument (multipart, the bytes streamed from Baton's copy).
// The caption is rendered like a message; one Telegram will not take is a FormattingError, so the
// core sends it again plain.
import { createReadStream } from "node:fs";
import { InputFile, type Api } from "grammy/web";
import { FormattingError } from "../../kernel/errors.js";
import type { MessageRef, OutboundFile } from "../contract.js";
import { toPlatformError } from "./errors.js";
import { markdownToTelegramHtml, visibleLength } from "./markdown.js";
import type { TelegramRoute } from "./routes.js";

/** Bot API upload limit (a self-hosted server in --local mode takes more). */
export const TELEGRAM_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** sendPhoto takes photos up to 10 MB in these formats. */
const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
const PHOTO_TYPES = new Set(["image/jpeg", "image/png", "image/webp"]);
/** Telegram's limit on a caption, after entity parsing. */
const MAX_CAPTION_CHARS = 1024;

export async function uploadFile(api: Api, token: string, target: TelegramRoute, file: OutboundFile): Promise<MessageRef> {
  const caption = captionOf(file);
  // grammY's web build takes the bytes as a stream (a path would be sent as text).
  const input = new InputFile(createReadStream(file.path), file.name);
  const common = { ...caption, message_thread_id: target.threadId };
  const asPhoto = PHOTO_TYPES.has(file.mimeType) && file.size <= PHOTO_MAX_BYTES;
  try {
    const sent = asPhoto ? await api.sendPhoto(target.chatId, input, common) : await api.sendDocument(target.chatId, input, common);
    return { id: String(sent.message_id) };
  } catch (error) {
    throw toPlatformError(error, asPhoto ? "send a photo" : "send a file", token);
  }
}

function captionOf(file: OutboundFile): { caption?: string; parse_mode?: "HTML" } {
  const text = file.caption?.trim();
  if (!text) return {};
  if (file.format === "plain") return { caption: text.length > MAX_CAPTION_CHARS ? `${text.slice(0, MAX_CAPTION_CHARS - 1)}…` : text };
  const html = markdownToTelegramHtml(text);
  if (visibleLength(html) > MAX_CAPTION_CHARS) throw new FormattingError("The caption is too long for Telegram.", { detail: `rendered ${visibleLength(html)} visible characters` });
  return { caption: html, parse_mode: "HTML" };
}
