// Wire details of the Slack fake: how Slack's clients encode requests, what Slack checks in a
// message, and what a person would see of one.
import type { IncomingMessage } from "node:http";

const SECTION_TEXT_MAX = 3000;
const MAX_BLOCKS = 50;
const BUTTON_LABEL_MAX = 75;

/** What a person sees of a message: its section and context texts, or its `text` when it has no blocks. */
export function visibleText(message: { text?: string; blocks?: any[] }): string {
  const sections = (message.blocks ?? []).flatMap((b: any) => (b.type === "section" ? [b.text.text] : b.type === "context" ? b.elements.map((e: any) => e.text) : []));
  return sections.length > 0 ? sections.join("\n") : (message.text ?? "");
}

/** The checks Slack makes that Baton could fail: text or blocks present, lengths and counts. */
export function validateMessage(params: Record<string, any>): string | undefined {
  if (!params.channel) return "channel_not_found";
  const blocks: any[] | undefined = params.blocks;
  if ((params.text === undefined || params.text === "") && (!blocks || blocks.length === 0)) return "no_text";
  if (!blocks) return undefined;
  if (!Array.isArray(blocks) || blocks.length > MAX_BLOCKS) return "invalid_blocks";
  for (const block of blocks) {
    if (block.type === "section" && (typeof block.text?.text !== "string" || block.text.text.length > SECTION_TEXT_MAX || block.text.text.length === 0)) return "invalid_blocks";
    if (block.type === "context" && (!Array.isArray(block.elements) || block.elements.length > 10 || block.elements.some((e: any) => !e.text || e.text.length > SECTION_TEXT_MAX)))
      return "invalid_blocks";
    if (block.type === "actions") {
      for (const element of block.elements ?? []) if ((element.text?.text ?? "").length > BUTTON_LABEL_MAX || !element.action_id) return "invalid_blocks";
    }
  }
  return undefined;
}

/** Slack's clients send form-encoded bodies with JSON-encoded objects; some send JSON. */
export async function readParams(req: IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  if ((req.headers["content-type"] ?? "").includes("application/json")) return raw ? JSON.parse(raw) : {};
  const params: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    params[key] = /^[[{]/.test(value) ? safeJson(value) : value;
  }
  return params;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
