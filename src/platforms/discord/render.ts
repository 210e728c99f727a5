// Baton's outbound message → the JSON body of a Discord message: the text in Discord's markdown,
// buttons in action rows, no mentions pinging anyone (an agent writing `@everyone` must not), and
// link previews suppressed (agents cite many links; a thread of embeds buries the answer).
import type { Button, OutboundMessage } from "../contract.js";
import { markdownToDiscord } from "./markdown.js";

/** Discord refuses a message longer than this many characters. */
const DISCORD_MAX_CONTENT_CHARS = 2000;
const MAX_ROWS = 5;
const MAX_BUTTONS_PER_ROW = 5;
const MAX_LABEL_CHARS = 80;
const MAX_CUSTOM_ID_CHARS = 100;
/** SUPPRESS_EMBEDS: no link previews under the message. */
const SUPPRESS_EMBEDS = 1 << 2;
/** Discord refuses an empty message; a zero-width space is the least that is not empty. */
const EMPTY_CONTENT = "\u200b";

const BUTTON_STYLE = { primary: 1, default: 2, danger: 4 } as const;

interface DiscordButton {
  type: 2;
  style: number;
  label: string;
  custom_id: string;
}

export interface DiscordMessageBody {
  content: string;
  components: Array<{ type: 1; components: DiscordButton[] }>;
  allowed_mentions: { parse: never[]; replied_user: false };
  flags: number;
}

/** Thrown when the rendered text would not fit Discord's limit (the markdown grew while being converted). */
export class ContentTooLongError extends Error {
  constructor(readonly length: number) {
    super(`rendered message is ${length} characters; Discord takes ${DISCORD_MAX_CONTENT_CHARS}`);
  }
}

export function renderMessage(message: OutboundMessage): DiscordMessageBody {
  const content = message.format === "plain" ? message.text : markdownToDiscord(message.text);
  const length = [...content].length;
  if (length > DISCORD_MAX_CONTENT_CHARS) throw new ContentTooLongError(length);
  return {
    content: content.trim() === "" ? EMPTY_CONTENT : content,
    components: actionRows(message.buttons ?? []),
    allowed_mentions: { parse: [], replied_user: false },
    flags: SUPPRESS_EMBEDS,
  };
}

/** Rows of buttons → action rows of at most five buttons; Discord takes five rows at most. */
function actionRows(rows: Button[][]): DiscordMessageBody["components"] {
  const out = rows.flatMap((row) => chunk(row, MAX_BUTTONS_PER_ROW)).map((row) => ({ type: 1 as const, components: row.map(discordButton) }));
  if (out.length > MAX_ROWS) throw new Error(`${out.length} rows of buttons; Discord shows ${MAX_ROWS} at most`);
  return out;
}

function discordButton(button: Button): DiscordButton {
  if (button.id.length > MAX_CUSTOM_ID_CHARS) throw new Error(`button id of ${button.id.length} characters; Discord takes ${MAX_CUSTOM_ID_CHARS}`);
  const label = button.label.length <= MAX_LABEL_CHARS ? button.label : `${button.label.slice(0, MAX_LABEL_CHARS - 1)}…`;
  return { type: 2, style: BUTTON_STYLE[button.style ?? "default"], label, custom_id: button.id };
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
