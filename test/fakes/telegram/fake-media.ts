// The media side of the fake Bot API: request bodies as grammy sends them (JSON, or multipart when
// a file is uploaded: each file in a part of its own, named by `attach://<part>` in the field, with
// header names in lower case and parameters unquoted, which the Bot API accepts and this parser
// reads as it does), and sendPhoto / sendDocument with an uploaded file and an optional caption
// (HTML parse mode validated, 1024 visible characters at most). A file given by file_id or URL
// instead of uploaded bytes is refused: Baton always uploads. Photos over 10 MB are refused, as
// Telegram does; documents over 50 MB too.
import type { IncomingMessage } from "node:http";
import { parseTelegramHtml } from "./telegram-html.js";
import { boundaryOf, parseMultipart, type UploadedPart } from "../multipart.js";

export interface SentMedia {
  kind: "photo" | "document";
  name: string;
  mimeType: string;
  size: number;
  data: Buffer;
}

const MAX_CAPTION_CHARS = 1024;
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;
const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;

/** A request's parameters: JSON fields, or multipart fields with uploaded files as UploadedPart. */
export async function readRequestParams(request: IncomingMessage): Promise<Record<string, any>> {
  const type = request.headers["content-type"] ?? "";
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const boundary = boundaryOf(type);
  if (boundary) return resolveAttachments(parseMultipart(raw, boundary));
  const body = raw.toString("utf8");
  return body.trim() === "" ? {} : (JSON.parse(body) as Record<string, any>);
}

/** `photo=attach://<part>` names the part that holds the file. */
function resolveAttachments(params: Record<string, string | UploadedPart>): Record<string, any> {
  const out: Record<string, any> = { ...params };
  for (const [key, value] of Object.entries(params)) {
    const ref = typeof value === "string" ? /^attach:\/\/(.+)$/.exec(value)?.[1] : undefined;
    if (ref && typeof params[ref] === "object") out[key] = params[ref];
  }
  return out;
}

/** What sendPhoto / sendDocument was given, checked as Telegram checks it; a string is the error. */
export function mediaOf(method: "sendPhoto" | "sendDocument", params: Record<string, any>): { media: SentMedia; caption: string } | string {
  const field = method === "sendPhoto" ? "photo" : "document";
  const part = params[field] as UploadedPart | string | undefined;
  if (part === undefined) return `there is no ${field} in the request`;
  if (typeof part === "string") return `wrong remote file identifier specified: the fake takes uploads only`;
  if (method === "sendPhoto" && part.data.length > MAX_PHOTO_BYTES) return "PHOTO_INVALID_DIMENSIONS";
  if (part.data.length > MAX_DOCUMENT_BYTES) return "file is too big";
  let caption = String(params.caption ?? "");
  if (params.parse_mode === "HTML") {
    const parsed = parseTelegramHtml(caption);
    if (!parsed.ok) return parsed.error.replace(/^Bad Request: /, "");
    caption = parsed.text;
  } else if (params.parse_mode !== undefined) return `unsupported parse_mode ${params.parse_mode}`;
  if (caption.length > MAX_CAPTION_CHARS) return "message caption is too long";
  return { media: { kind: field, name: part.filename, mimeType: part.mimeType, size: part.data.length, data: part.data }, caption };
}
