// What the chat commands reach beyond threads and agents: bindings, the session's mode and model,
// files into the chat, schedules and voice notes. The core implements it (src/core/features.ts).
import type { SessionSetting, SettingKind } from "../agents/session-settings.js";
import type { Button } from "../platforms/contract.js";
import type { ThreadRecord } from "../threads/registry.js";
import { CommandError } from "../kernel/errors.js";
import type { HostChoice, LocalFile } from "./context.js";

export interface BindingInfo {
  index: number;
  match: string;
  workspace: string;
  host?: HostChoice;
}

export interface NewThreadSpec {
  workspace: string;
  agent: string;
  profile?: string;
  /** The binding's match when a binding chose workspace and agent. */
  binding?: string;
}

export interface ScheduleInfo {
  id: string;
  route: string;
  cron: string;
  prompt: string;
  timeZone?: string;
  source: "config" | "chat";
  next?: Date;
}

interface SettingMenu {
  text: string;
  buttons?: Button[][];
  /** Hands over a way to replace the menu's message once a choice was made. */
  keep(replace: (text: string) => void): void;
}

export interface ChatFeatures {
  /** The config binding of a route, if one matches. */
  binding(route: string): BindingInfo | undefined;
  /** Workspace and agent of a new thread on this route: the binding's, else the defaults. */
  newThreadSpec(route: string): Promise<NewThreadSpec>;

  /** The mode or model the agent advertises (starts the thread's agent when none runs); undefined when it offers none. */
  setting(thread: ThreadRecord, kind: SettingKind): Promise<SessionSetting | undefined>;
  /** The current one without starting anything (`pending`: chosen, applied when the agent starts). */
  currentSetting(thread: ThreadRecord, kind: SettingKind): { id?: string; name?: string; pending: boolean };
  changeSetting(thread: ThreadRecord, kind: SettingKind, idOrName: string): Promise<{ id: string; name: string }>;
  settingMenu(thread: ThreadRecord, setting: SessionSetting, withButtons: boolean): SettingMenu;
  /** What to say when an agent offers no such setting. */
  noSettingText(kind: SettingKind): string;

  /** A workspace file into this chat (inside the thread's workspace, size-capped); throws FileRefusedError with the reason. */
  sendFile(route: string, thread: ThreadRecord, path: string): Promise<void>;
  /** Text Baton made (a patch) into this chat as a file named `name`, with a caption. */
  sendData(route: string, name: string, data: Buffer, caption: string): Promise<void>;

  /** The thread's usage so far, for /status. */
  usageSummary(thread: ThreadRecord): string;

  schedules: {
    list(route: string): ScheduleInfo[];
    add(route: string, cron: string, prompt: string, createdBy: string, timeZone?: string): Promise<ScheduleInfo>;
    remove(route: string, id: string): Promise<void>;
  };

  /**
   * Voice notes among the files: transcribed where an endpoint is configured (the transcripts come
   * back), kept as audio for an agent that takes it, else dropped with `refusal` saying how to
   * enable them.
   */
  voiceNotes(thread: ThreadRecord, files: LocalFile[]): Promise<{ files: LocalFile[]; transcripts: string[]; problems: string[] }>;
}

/** How a binding is named in the chat: `slack:T1/C2*` (bindings[0] in the config). */
export function describeBinding(binding: Pick<BindingInfo, "index" | "match">): string {
  return `\`${binding.match}\` (bindings[${binding.index}] in the config)`;
}

/** Refuses what would take a bound chat away from its binding (/new or /workspace --switch elsewhere). */
export function boundRefusal(binding: BindingInfo, what: string): CommandError {
  const host = binding.host ? ` with ${binding.host.agent}${binding.host.profile ? `+${binding.host.profile}` : ""}` : "";
  return new CommandError(
    `This chat is bound to \`${binding.workspace}\`${host} by ${describeBinding(binding)}, so ${what} is not possible here. Ask the operator to change the binding, or use another chat.`,
  );
}
