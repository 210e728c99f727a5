// What travels over the web chat's WebSocket, both ways. Shared by the server and the page's
// script (client/), so both sides agree at compile time; the server also validates what arrives.
import { z } from "zod";
import type { Button, RouteInfo } from "../contract.js";

export type { Button };

export type WebMessageKind = "user" | "text" | "thought" | "tool" | "plan" | "notice" | "approval" | "error" | "usage";

/** A file a message carries: the agent's (with `url` to load it from) or one the operator sent. */
export interface WireFile {
  name: string;
  mimeType: string;
  size: number;
  /** Where the page loads it (behind the token); absent for the operator's own uploads. */
  url?: string;
  /** Shown inline as an image (raster types only). */
  inline?: boolean;
}

/** One message as the page shows it. `html` is already sanitised by the server (render.ts). */
export interface WireMessage {
  id: string;
  role: "user" | "agent";
  kind: WebMessageKind;
  html: string;
  buttons?: Button[][];
  files?: WireFile[];
  /** Epoch milliseconds of the first send. */
  at: number;
}

export interface ConversationSummary {
  /** The conversation id: the route without the platform prefix. */
  id: string;
  title: string;
  /** Epoch milliseconds of the newest message. */
  updatedAt: number;
  /** A turn is running (the Stop button shows). */
  running: boolean;
  /** What the core has attached the route to; absent before the first message. */
  info?: RouteInfo;
}

export interface CommandHint {
  name: string;
  description: string;
}

export type ServerEvent =
  | { type: "welcome"; user: string; commands: CommandHint[]; conversations: ConversationSummary[] }
  | { type: "history"; conversation: string; messages: WireMessage[] }
  | { type: "message"; conversation: string; message: WireMessage }
  | { type: "conversation"; conversation: ConversationSummary }
  | { type: "forgotten"; conversation: string }
  | { type: "typing"; conversation: string }
  | { type: "actionResult"; conversation: string; messageId: string; ok: boolean; text: string }
  | { type: "error"; conversation?: string; text: string };

/** Conversation ids are made by the browser; they become file names and route keys, so keep them plain. */
export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9_-]{6,64}$/;
/** A prompt longer than this is refused (the agents take far less anyway). */
const MAX_PROMPT_CHARS = 100_000;
export { UPLOAD_NAME_HEADER, UPLOAD_PATH } from "./client/limits.js";
import { MAX_FILES_PER_MESSAGE } from "./client/limits.js";

const conversationId = z.string().regex(CONVERSATION_ID_PATTERN);

export const clientEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), browser: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/) }),
  z.object({ type: z.literal("open"), conversation: conversationId }),
  z
    .object({
      type: z.literal("send"),
      conversation: conversationId,
      text: z.string().max(MAX_PROMPT_CHARS),
      files: z
        .array(z.string().regex(/^[A-Za-z0-9_-]{6,64}$/))
        .max(MAX_FILES_PER_MESSAGE)
        .optional(),
    })
    .refine((e) => e.text.length > 0 || (e.files?.length ?? 0) > 0, "a message needs text or a file"),
  z.object({ type: z.literal("action"), conversation: conversationId, messageId: z.string().max(64), actionId: z.string().min(1).max(128) }),
  z.object({ type: z.literal("forget"), conversation: conversationId }),
  // The person types a message into the conversation (sent at most every few seconds).
  z.object({ type: z.literal("typing"), conversation: conversationId }),
]);

export type ClientEvent = z.infer<typeof clientEventSchema>;
