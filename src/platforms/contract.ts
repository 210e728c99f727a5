// The platform contract: what every IM adapter (and the web chat) implements, and what the core
// offers back. Adapters never route: they turn the platform's events into InboundMessage /
// ActionPress and hand them to the core; the core calls send / edit / delete to answer.

/** Markdown dialect an adapter renders to; the core always hands over CommonMark + GFM. */
export type MarkdownDialect = "html" | "telegram-html" | "slack-mrkdwn" | "discord" | "matrix-html" | "plain";

export interface PlatformCapabilities {
  /** Longest text one message may carry, in characters of the *markdown* the core sends (leave headroom for markup growth). */
  maxMessageLength: number;
  /** The platform can edit a sent message (streaming by edits); otherwise the core sends once at the end of a block. */
  edits: boolean;
  /** Inline buttons for approvals; otherwise the core shows a numbered list and accepts `/allow`, `/deny`, `1`, `2`… */
  buttons: boolean;
  /** The platform shows a typing indicator (the core calls `typing()` every `typingIntervalMs`). */
  typing: boolean;
  typingIntervalMs?: number;
  /** Overrides the configured minimum gap between two edits of one message (ms). */
  minEditGapMs?: number;
  dialect: MarkdownDialect;
}

/** A user as the platform knows them. `id` is qualified by the platform kind: `telegram:123`, `slack:U42`. */
export interface PlatformUser {
  id: string;
  name?: string;
}

/** A file the user sent, already downloaded by the adapter (size-capped) to a local path. */
export interface InboundFile {
  name: string;
  path: string;
  mimeType?: string;
  size: number;
}

export interface InboundMessage {
  /** Route key, prefixed by the platform instance: `telegram:42:7`, `slack:T1/C2:1700000000.0001`. */
  route: string;
  user: PlatformUser;
  text: string;
  /** The bot was addressed: a DM, a mention, a reply to the bot, or a command. Unaddressed group chatter is ignored unless the route listens to all. */
  addressed: boolean;
  /** True in a direct message with the bot (one-to-one). */
  direct?: boolean;
  /** Platform message id, for reactions/replies. */
  messageId?: string;
  files?: InboundFile[];
}

/** A button press on a message the core sent with `buttons`. */
export interface ActionPress {
  route: string;
  user: PlatformUser;
  /** The `id` of the pressed Button, opaque to the adapter (fits Telegram's 64-byte callback_data). */
  actionId: string;
  messageId?: string;
}

export type ActionOutcome =
  | { ok: true; /** Short text for a toast/ack, e.g. "Allowed once". */ text: string }
  | { ok: false; /** Why nothing changed, shown only to the presser (alert / ephemeral). */ text: string };

export interface Button {
  id: string;
  label: string;
  style?: "primary" | "danger" | "default";
}

export interface OutboundMessage {
  /** Markdown (CommonMark + GFM); the adapter converts it to its dialect. */
  text: string;
  /** `plain` asks the adapter to send the text as is, with no formatting. */
  format?: "markdown" | "plain";
  /** Rows of buttons (approvals). Only sent where `capabilities.buttons`. */
  buttons?: Button[][];
  /** Marks a message that shows progress (tool line, status) so platforms may render it quieter. */
  kind?: "text" | "thought" | "tool" | "plan" | "notice" | "approval" | "error";
}

/** Handle of a sent message, opaque to the core. */
export interface MessageRef {
  id: string;
}

export interface StartInfo {
  /** One line for `baton start`: where it listens or whom it connected as. */
  description: string;
}

/** What the core offers an adapter. */
export interface PlatformCore {
  handleMessage(message: InboundMessage): Promise<void>;
  handleAction(press: ActionPress): Promise<ActionOutcome>;
  /** Commands for menus such as Telegram's setMyCommands: name without slash + one-line help. */
  commandList(): Array<{ name: string; description: string }>;
  /** What a route is attached to, for platforms that show a conversation list (the web chat). */
  routeInfo?(route: string): RouteInfo | undefined;
  log: PlatformLogger;
}

export interface RouteInfo {
  thread: string;
  agent: string;
  profile?: string;
  workspace: string;
  session?: string;
  host: "running" | "idle" | "stopped";
  open: boolean;
}

export interface PlatformLogger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

export interface PlatformAdapter {
  /** Instance name from config (`telegram`, `slack_acme`); prefixes every route of this adapter. */
  readonly name: string;
  /** Platform kind: `web`, `telegram`, `slack`, `test`, … */
  readonly kind: string;
  readonly capabilities: PlatformCapabilities;

  /** Connects (or listens) and starts handing events to `core`. Rejects with a PlatformError when it cannot. */
  start(core: PlatformCore): Promise<StartInfo>;
  /** Disconnects cleanly; pending sends may be dropped. */
  stop(): Promise<void>;

  send(route: string, message: OutboundMessage): Promise<MessageRef>;
  edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void>;
  delete?(route: string, ref: MessageRef): Promise<void>;
  /** Shows "typing…" once; the core repeats it while a turn runs. */
  typing?(route: string): Promise<void>;
  /** A turn started / ended on a route (for reactions or assistant status where typing is not a thing). */
  turnStatus?(route: string, state: "running" | "idle", promptMessageId?: string): Promise<void>;
  /** Answers a user in a way only they see, where the platform can (Slack ephemeral). Falls back to send. */
  notifyUser?(route: string, userId: string, text: string): Promise<void>;
}

export type PlatformFactory<C = unknown> = (name: string, config: C, env: PlatformEnv) => PlatformAdapter | Promise<PlatformAdapter>;

/** What `bot/` hands a factory besides its own config section. */
export interface PlatformEnv {
  dataDir: string;
  /** Directory for downloaded inbound files; adapters create per-route subfolders. */
  cacheDir: string;
}
