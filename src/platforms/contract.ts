// The platform contract: what every IM adapter (and the web chat) implements, and what the core
// offers back. Adapters translate, the core delivers: an adapter turns the platform's events into
// facts (InboundMessage, ActionPress) and performs one platform call at a time (send or edit one
// message, typing). Which thread a message belongs to, whether the bot was addressed, who may use
// it, ordering, pacing, retries, splitting and the plain-text fallback are the core's business.
export interface PlatformCapabilities {
  /** Longest text one message may carry, in characters of the markdown the core sends (leave headroom for markup growth). The core splits there. */
  maxMessageLength: number;
  /** The platform can edit a sent message (streaming by edits); otherwise the core sends a block once it is complete. */
  edits: boolean;
  /** Inline buttons for approvals; otherwise the core shows a numbered list and accepts `/allow`, `/deny`, `1`, `2`… */
  buttons: boolean;
  /** How often the core repeats `typing()` while a turn runs (the platform's indicator fades after about this long). */
  typingIntervalMs?: number;
  /** Least time between two edits of one message (ms); overrides the configured default. */
  minEditGapMs?: number;
  /** Pacing for platforms whose SDK does not pace itself: the core spaces calls out before they are made. */
  pacing?: PacingLimits;
  /** Every user of this platform was authenticated by Baton itself (the web chat's token): no access list applies. */
  usersAuthenticated?: boolean;
  /** Largest file `upload()` can send (bytes); the core refuses bigger ones before calling it. */
  maxUploadBytes?: number;
  /**
   * The turn's usage line is shown as a message of its own kind (the web chat styles it apart, and
   * a message costs it nothing); elsewhere it is the last line of the answer's last message.
   */
  usageApart?: boolean;
}

/**
 * A platform's documented limits, in the two shapes platforms state them. Calls not counted by any
 * limit go at once; a 429 still holds back what it names for as long as the platform asked.
 */
export interface PacingLimits {
  /** Per pace key (a chat, a channel): a token bucket, so a burst goes at once and a stream keeps the sustained rate. */
  key?: BucketRate;
  /** Which calls the key's bucket counts: every call (Telegram counts edits), or sends only (Slack's per-channel limit). Default: all. */
  keyCounts?: "all" | "sends";
  /** Also per pace key, for keys `paceKey` marks as windowed (a Telegram group: 20 a minute; a Discord channel: 5 in 5 s). */
  keyWindow?: WindowRate;
  /** The whole platform instance. */
  platform?: WindowRate;
  /** Edits across the whole instance (Slack's chat.update is its own per-workspace tier). */
  platformEdits?: WindowRate;
}

/** A token bucket: `burst` calls at once from rest, then `perSecond` sustained. */
export interface BucketRate {
  burst: number;
  perSecond: number;
}

/** At most `calls` in any `windowMs`. */
export interface WindowRate {
  calls: number;
  windowMs: number;
}

/** What a call does to a message: posts it or changes it. */
export type CallKind = "send" | "edit";

/** A user as the platform knows them. `id` is qualified by the platform kind: `telegram:123`, `slack:U42`. */
export interface PlatformUser {
  id: string;
  name?: string;
  /**
   * The user's role ids where the event happened, when the event itself says (a Discord guild
   * member's): the adapter's `memberOf` reads them instead of asking the platform.
   */
  roles?: readonly string[];
}

/**
 * A file the user sent, not downloaded yet. The core fetches it only for a user who is allowed,
 * into its size-capped cache; a stranger's upload never touches the disk.
 */
export interface InboundFile {
  name: string;
  mimeType?: string;
  /** Size the platform announced, if it did (a file over the limit is refused before it is fetched). */
  size?: number;
  /** The file's bytes (decrypted, where the platform encrypts). Rejects with a PlatformError. */
  fetch(signal: AbortSignal): Promise<AsyncIterable<Uint8Array>>;
}

export interface InboundMessage {
  /** Route key, prefixed by the platform instance: `telegram:42:7`, `slack:T1/C2:1700000000.0001`. */
  route: string;
  user: PlatformUser;
  /** The text as the user wrote it, the bot's mention still in it (see `mentions`). */
  text: string;
  /** Platform message id (a reaction to the prompt while its turn runs). */
  messageId?: string;
  /** A one-to-one chat with the bot: every message there is addressed to it. */
  direct: boolean;
  /** The exact substrings of `text` that mention the bot (`@baton`); the core removes them. */
  mentions?: string[];
  /** A reply to one of the bot's messages, or a message in a thread the bot is part of. */
  replyToBot?: boolean;
  /** Routes that enclose this one (a topic's chat, a thread's channel), for `listen_all_in`. */
  scopes?: string[];
  files?: InboundFile[];
  /**
   * The platform's id of this delivery (a message id, Slack's trigger id): the core drops a second
   * delivery of an id it saw lately (a redelivery after a reconnect, one message sent as two events).
   */
  eventId?: string;
  /**
   * Facts still being looked up when the message arrived (is this thread the bot's? a new thread
   * for it): the core waits for them in the message's place in its route's line, so a later
   * message of the route is not handled first. Its fields replace the message's; null drops it.
   */
  lookup?: Promise<InboundLookup | null>;
}

export type InboundLookup = Partial<Pick<InboundMessage, "route" | "replyToBot" | "scopes">>;

/** A button press on a message the core sent with `buttons`. */
export interface ActionPress {
  route: string;
  user: PlatformUser;
  /** The `id` of the pressed Button, opaque to the adapter (fits Telegram's 64-byte callback_data). */
  actionId: string;
  /** The platform's id of this delivery: a second delivery of it is dropped (as InboundMessage.eventId). */
  eventId?: string;
}

export type ActionOutcome =
  | { ok: true /** Short text for a toast/ack, e.g. "Allowed once". */; text: string }
  | { ok: false /** Why nothing changed, shown only to the presser (alert / ephemeral). */; text: string };

export interface Button {
  id: string;
  label: string;
  style?: "primary" | "danger" | "default";
  /** What pressing it means, for platforms that show a choice as a symbol (Matrix's reactions): the label is for people only. */
  meaning?: "allow" | "deny" | "choice";
  /** An allow or deny that lasts (always, for the session), not only this once. */
  lasting?: boolean;
}

export type MessageKind = "text" | "thought" | "tool" | "plan" | "notice" | "approval" | "error" | "usage";

export interface OutboundMessage {
  /** Markdown (CommonMark + GFM), at most `maxMessageLength` characters; the adapter converts it to its dialect. */
  text: string;
  /** `plain` asks the adapter to send the text as is, with no formatting (the fallback after a FormattingError). */
  format?: "markdown" | "plain";
  /** Rows of buttons (approvals). Only sent where `capabilities.buttons`. */
  buttons?: Button[][];
  /** What the message shows, so platforms may render progress quieter. */
  kind?: MessageKind;
}

/**
 * A file the core sends into a chat: an image or file from the agent, a workspace file asked for
 * with `/file`. Always a file on disk (the core's own copy, deleted once the upload settled), so a
 * retried upload reads it again from the start.
 */
export interface OutboundFile {
  /** File name as the chat shows it (no directories). */
  name: string;
  mimeType: string;
  path: string;
  size: number;
  /** Markdown shown with the file; the adapter converts it like a message's text. */
  caption?: string;
  /** `plain` after a FormattingError of the caption, as for messages. */
  format?: "markdown" | "plain";
}

/** Handle of a sent message, opaque to the core. */
export interface MessageRef {
  id: string;
}

export interface StartInfo {
  /** One line for `baton start`: where it listens or whom it connected as. */
  description: string;
}

/**
 * A person started typing where the platform says so (Discord's TYPING_START, Matrix's m.typing,
 * the web chat's client): a message is likely on its way. Telegram's and Slack's bots get no such event.
 */
export interface TypingStart {
  route: string;
  user: PlatformUser;
}

/** What the core offers an adapter. */
export interface PlatformCore {
  handleMessage(message: InboundMessage): Promise<void>;
  /** Someone types on a route: the core may get the thread's agent ready before the message comes. Never throws. */
  handleTyping?(typing: TypingStart): void;
  handleAction(press: ActionPress): Promise<ActionOutcome>;
  /** Commands for menus such as Telegram's setMyCommands: name without slash + one-line help. */
  commandList(): Array<{ name: string; description: string }>;
  /**
   * Whether `userId` may use the bot on `route` (in access.allow, or vouched for by the platform).
   * Only for what an adapter must decide before any message exists, such as accepting a room
   * invite (Matrix); messages and presses go to the core, which checks access itself.
   */
  isAllowed?(userId: string, route: string): boolean;
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
  /** Disconnects cleanly. */
  stop(): Promise<void>;

  /** One platform call. Throws PlatformError (FormattingError when the formatting was refused). */
  send(route: string, message: OutboundMessage): Promise<MessageRef>;
  /** One platform call; the message's whole new content. Throws like send. */
  edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void>;
  /** Shows "typing…" once; the core repeats it every `typingIntervalMs` while a turn runs. */
  typing?(route: string): Promise<void>;
  /** A turn started / ended on a route (a reaction or assistant status where typing is not a thing). */
  turnStatus?(route: string, state: "running" | "idle", promptMessageId?: string): Promise<void>;
  /**
   * What the route is attached to changed (a thread made, closed or switched, its session, its
   * host started or stopped): a platform that shows it (the web chat's list) reads routeInfo again.
   */
  routeChanged?(route: string): void;
  /**
   * One platform call that posts a file (an image shown inline where the platform does that) with
   * its caption. Throws like send. Without it the core sends a line naming the file instead.
   */
  upload?(route: string, file: OutboundFile): Promise<MessageRef>;
  /** A message only `userId` sees (Slack and Discord ephemerals); the core falls back to send. */
  notify?(route: string, userId: string, text: string): Promise<void>;
  /**
   * Whether `user` is in one of the platform's own groups, `principal` (`slack:group:S0DEVS`,
   * `discord:role:<id>`, `matrix:power:50`, `telegram:admins`), where `route` is. At most one
   * platform call; rejects with a PlatformError when the platform could not say, and the core then
   * refuses. The core asks only for principals of this platform's kind, and caches the answers.
   */
  memberOf?(principal: string, user: PlatformUser, route: string): Promise<boolean>;
  /** Where an answer of memberOf holds, for the core's cache: the Slack workspace, the Telegram chat, the Matrix room. Default: the route. */
  groupScope?(route: string): string;
  /** Calls that share a key are paced together (`capabilities.pacing`), `windowed` ones also by `keyWindow`; default: the route, not windowed. */
  paceKey?(route: string): { key: string; windowed: boolean };
}

/** Settings every adapter's config section has; the core applies them (see platforms/kit/config.ts). */
export interface CommonPlatformSettings {
  /** Routes where every message counts as addressed. */
  listenAllIn: string[];
  /** Largest inbound file fetched (bytes). */
  maxFileBytes: number;
}

export type PlatformFactory<C = unknown> = (name: string, config: C, env: PlatformEnv) => PlatformAdapter | Promise<PlatformAdapter>;

/** What `bot/` hands a factory besides its own config section. */
export interface PlatformEnv {
  dataDir: string;
  /**
   * Where a platform keeps how far it has read (Telegram's update offset, …) so that another
   * instance taking over continues from there; present with store.url.
   */
  cursors?: PlatformCursors;
  /**
   * Where a platform keeps state that must follow the leader to another machine (Matrix's login and
   * end-to-end crypto store); present with store.url. It may hold secrets: never log what it holds.
   */
  snapshots?: PlatformSnapshots;
}

/** A snapshot with the records appended after it, as stored under one key. */
export interface StoredSnapshot {
  snapshot: Buffer;
  /** In the order they were appended. */
  records: Buffer[];
}

/**
 * A platform's durable state as a snapshot and the records made since it (a journal). Writes are
 * queued and stored in order per key, in the background; a failure is logged and the write kept
 * for the next try, never thrown.
 */
export interface PlatformSnapshots {
  /** What is stored under `key`, or undefined when nothing is. */
  load(key: string): Promise<StoredSnapshot | undefined>;
  /** Adds a record after the snapshot of `generation`. */
  append(key: string, generation: number, record: Buffer): void;
  /** Replaces the snapshot by one of `generation`; the records of older generations go with it. */
  replace(key: string, generation: number, snapshot: Buffer): void;
  /** Resolves once every write queued so far under `key` has been stored or has failed. */
  flushed(key: string): Promise<void>;
}

export interface PlatformCursors {
  get(key: string): Promise<string | undefined>;
  /** Saves in the background (the latest value wins); a failure is logged, never thrown. */
  set(key: string, value: string): void;
}
