// OutboundMessage → the `text` + `blocks` of chat.postMessage / chat.update.
// Every message carries blocks (so an edit always replaces what was there, buttons included) and
// a short `text` fallback that Slack uses for notifications.
import type { Button, OutboundMessage } from "../contract.js";
import { splitMarkdown } from "../../render/split.js";
import { escapeMrkdwn, markdownToMrkdwn } from "./mrkdwn.js";

/** Slack rejects a section whose text is longer than this. */
const SECTION_TEXT_MAX_CHARS = 3000;
/** Slack allows at most 50 blocks in one message. */
const MESSAGE_MAX_BLOCKS = 50;
/** Button labels are plain_text of at most 75 characters. */
const BUTTON_LABEL_MAX_CHARS = 75;
/** Notification fallback text: kept short, the blocks carry the content. */
const FALLBACK_TEXT_MAX_CHARS = 300;
/** Every action_id Baton sends starts with this, so the action listener matches only ours. */
export const ACTION_ID_PREFIX = "baton:";

export interface SlackMessageBody {
  text: string;
  blocks: SlackBlock[];
}

type SlackBlock = { type: "section"; text: SlackTextObject } | { type: "context"; elements: SlackTextObject[] } | { type: "actions"; block_id: string; elements: SlackButtonElement[] };

type SlackTextObject = { type: "mrkdwn"; text: string } | { type: "plain_text"; text: string; emoji: boolean };

interface SlackButtonElement {
  type: "button";
  action_id: string;
  value: string;
  text: { type: "plain_text"; text: string; emoji: boolean };
  style?: "primary" | "danger";
}

export function renderOutbound(message: OutboundMessage): SlackMessageBody {
  const actionBlocks = (message.buttons ?? []).filter((row) => row.length > 0).map(buttonRow);
  // Plain (the resend after Slack refused the formatting): the words in `text`, escaped, no section blocks.
  if (message.format === "plain") return { text: escapeMrkdwn(message.text) || " ", blocks: actionBlocks };
  const body = markdownToMrkdwn(message.text);
  // Progress lines (tool calls, thoughts, plans) go in context blocks: Slack shows them small and grey.
  const quiet = message.kind === "tool" || message.kind === "thought" || message.kind === "plan";
  const sections = splitForSections(body === "" ? " " : body).map<SlackBlock>((text) => {
    const textObject: SlackTextObject = { type: "mrkdwn", text };
    return quiet ? { type: "context", elements: [textObject] } : { type: "section", text: textObject };
  });
  const blocks = [...sections.slice(0, MESSAGE_MAX_BLOCKS - actionBlocks.length), ...actionBlocks];
  return { text: fallbackText(message.text), blocks };
}

function actionIdFor(button: Button): string {
  return ACTION_ID_PREFIX + button.id;
}

export function buttonIdFromActionId(actionId: string): string | undefined {
  return actionId.startsWith(ACTION_ID_PREFIX) ? actionId.slice(ACTION_ID_PREFIX.length) : undefined;
}

function buttonRow(row: Button[], index: number): SlackBlock {
  return {
    type: "actions",
    block_id: `baton_row_${index}`,
    elements: row.map((button) => {
      const element: SlackButtonElement = {
        type: "button",
        action_id: actionIdFor(button),
        value: button.id,
        text: { type: "plain_text", text: button.label.slice(0, BUTTON_LABEL_MAX_CHARS), emoji: true },
      };
      if (button.style === "primary" || button.style === "danger") element.style = button.style;
      return element;
    }),
  };
}

function fallbackText(markdown: string): string {
  const flat = escapeMrkdwn(markdown.replace(/\s+/g, " ").trim());
  if (flat.length <= FALLBACK_TEXT_MAX_CHARS) return flat || " ";
  // Cut without leaving half an entity such as `&am`.
  return `${flat.slice(0, FALLBACK_TEXT_MAX_CHARS - 1).replace(/&[a-z]*$/, "")}…`;
}

/**
 * Splits mrkdwn into section texts of at most SECTION_TEXT_MAX_CHARS, within one message: the
 * shared splitter (paragraph, then line boundaries; a code block cut in two closed and reopened).
 */
export function splitForSections(text: string, limit = SECTION_TEXT_MAX_CHARS): string[] {
  return splitMarkdown(text, limit);
}
