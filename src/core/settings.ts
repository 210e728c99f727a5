// /mode and /model: the session's mode and model as the agent advertises them, switched on the
// running session (never a new one), recorded on the thread and applied again whenever the session
// is opened on a new host (after an idle shutdown, a crash or a restart). Menus of buttons carry
// short ids that map back to the choice here, so they fit Telegram's 64-byte callback data.
import { randomBytes } from "node:crypto";
import type { AgentHost } from "../agents/host.js";
import type { SessionSetting, SettingChoice, SettingKind } from "../agents/session-settings.js";
import type { Supervisor } from "../agents/supervisor.js";
import { CommandError, userMessageOf } from "../kernel/errors.js";
import type { ActionOutcome, ActionPress, Button } from "../platforms/contract.js";
import type { ThreadRecord, ThreadRegistry } from "../threads/registry.js";

const SETTING_ACTION_PREFIX = "st:";
/** Menus remembered for their buttons; the oldest are forgotten first. */
const MAX_MENUS = 1_000;
const BUTTONS_PER_ROW = 3;
const MAX_BUTTONS = 24;

interface Menu {
  threadId: string;
  kind: SettingKind;
  ids: string[];
  /** Replaces the menu's message (the choice shown, the buttons gone). */
  replace?: (text: string) => void;
}

export class SessionSettingsService {
  private readonly menus = new Map<string, Menu>();

  constructor(
    private readonly supervisor: Supervisor,
    private readonly registry: ThreadRegistry,
    /** A notice on every route of a thread. */
    private readonly notify: (thread: ThreadRecord, text: string) => void,
    /** The thread's host with its session open, started now when none runs. */
    private readonly openHost: (thread: ThreadRecord) => Promise<AgentHost>,
  ) {}

  /** What the agent advertises; starts the thread's agent when none runs, so it can say. */
  async view(thread: ThreadRecord, kind: SettingKind): Promise<SessionSetting | undefined> {
    return (await this.hostOf(thread)).settings.get(kind);
  }

  /** Without starting anything: what the live session says, else what the thread chose. */
  current(thread: ThreadRecord, kind: SettingKind): { id?: string; name?: string; pending: boolean } {
    const live = this.supervisor.host(thread.id)?.settings.get(kind);
    if (live) return { id: live.current, name: live.choices.find((c) => c.id === live.current)?.name, pending: false };
    return { id: thread.settings[kind], pending: thread.settings[kind] !== undefined };
  }

  /** Switches the running session to the choice named by id or name, and records it on the thread. */
  async change(thread: ThreadRecord, kind: SettingKind, wanted: string): Promise<SettingChoice> {
    const host = await this.hostOf(thread);
    const setting = host.settings.get(kind);
    if (!setting) throw new CommandError(noSettingText(kind));
    const lower = wanted.toLowerCase();
    const choice = setting.choices.find((c) => c.id === wanted) ?? setting.choices.find((c) => c.id.toLowerCase() === lower || c.name.toLowerCase() === lower);
    if (!choice) throw new CommandError(`No ${kind} "${wanted}". Choose one of: ${setting.choices.map((c) => `\`${c.id}\``).join(", ")}.`);
    await host.changeSetting(kind, choice.id);
    await this.registry.changeSettings(thread.id, { [kind]: choice.id });
    return choice;
  }

  /**
   * The agent switched its mode or model by itself: the chats are told, and a choice the thread had
   * made follows the agent (so a restart does not undo what the agent did).
   */
  async agentChanged(thread: ThreadRecord, kind: SettingKind, id: string): Promise<void> {
    const setting = this.supervisor.host(thread.id)?.settings.get(kind);
    const name = setting?.choices.find((c) => c.id === id)?.name ?? id;
    this.notify(thread, `🔀 The agent switched its ${kind} to **${name}** (\`${id}\`).`);
    if (thread.settings[kind] !== undefined && thread.settings[kind] !== id) await this.registry.changeSettings(thread.id, { [kind]: id });
  }

  /** A session was opened on a new host: the thread's chosen mode and model are applied again. Returns notes for the chat. */
  async reapply(thread: ThreadRecord, host: AgentHost): Promise<string[]> {
    const notes: string[] = [];
    for (const kind of ["mode", "model"] as const) {
      const wanted = thread.settings[kind];
      const setting = host.settings.get(kind);
      if (!wanted || !setting || setting.current === wanted) continue;
      if (!setting.choices.some((c) => c.id === wanted)) {
        notes.push(`The ${kind} \`${wanted}\` chosen earlier is not offered any more; the session runs with \`${setting.current ?? "its default"}\`.`);
        continue;
      }
      try {
        await host.changeSetting(kind, wanted);
      } catch (error) {
        notes.push(`Could not switch the ${kind} back to \`${wanted}\`: ${userMessageOf(error)}`);
      }
    }
    return notes;
  }

  /** The menu of choices: buttons where the platform has them, else the command to type. */
  menu(thread: ThreadRecord, setting: SessionSetting, withButtons: boolean): { text: string; buttons?: Button[][]; keep: (replace: (text: string) => void) => void } {
    const title = setting.kind === "mode" ? "Mode" : "Model";
    const current = setting.choices.find((c) => c.id === setting.current);
    const head = `**${title}:** ${current ? `${current.name} (\`${current.id}\`)` : setting.current ? `\`${setting.current}\`` : "not reported"}`;
    const choices = setting.choices.slice(0, MAX_BUTTONS);
    if (!withButtons) {
      const list = setting.choices.map((c) => `• \`${c.id}\` ${c.name}${c.description ? ` — ${c.description}` : ""}${c.id === setting.current ? " ✓" : ""}`).join("\n");
      return { text: `${head}\n${list}\n\nSwitch with \`/${setting.kind} <id>\`.`, keep: () => undefined };
    }
    const key = randomBytes(4).toString("base64url");
    const menu: Menu = { threadId: thread.id, kind: setting.kind, ids: choices.map((c) => c.id) };
    this.remember(key, menu);
    const buttons: Button[][] = [];
    choices.forEach((c, i) => {
      if (i % BUTTONS_PER_ROW === 0) buttons.push([]);
      buttons
        .at(-1)!
        .push({ id: `${SETTING_ACTION_PREFIX}${key}:${i}`, label: c.id === setting.current ? `✓ ${c.name}` : c.name, style: c.id === setting.current ? "primary" : "default", meaning: "choice" });
    });
    return { text: `${head}\nSwitch to:`, buttons, keep: (replace) => (menu.replace = replace) };
  }

  isAction(actionId: string): boolean {
    return actionId.startsWith(SETTING_ACTION_PREFIX);
  }

  /** A press on a menu button: `st:<menu>:<choice index>`. */
  async answerAction(press: ActionPress): Promise<ActionOutcome> {
    const [, key, index] = press.actionId.split(":");
    const menu = this.menus.get(key ?? "");
    const id = menu?.ids[Number(index)];
    if (!menu || id === undefined) return { ok: false, text: "This menu has expired; send the command again." };
    const thread = this.registry.threadForRoute(press.route);
    if (!thread || thread.id !== menu.threadId) return { ok: false, text: "This menu belongs to an earlier thread; send the command again." };
    try {
      const choice = await this.change(thread, menu.kind, id);
      const title = menu.kind === "mode" ? "Mode" : "Model";
      menu.replace?.(`**${title}:** ${choice.name} (\`${choice.id}\`) ✓ — by ${press.user.name ?? press.user.id}`);
      return { ok: true, text: `${title}: ${choice.name}` };
    } catch (error) {
      return { ok: false, text: userMessageOf(error) };
    }
  }

  private hostOf(thread: ThreadRecord): Promise<AgentHost> {
    return this.openHost(thread);
  }

  private remember(key: string, menu: Menu): void {
    this.menus.set(key, menu);
    if (this.menus.size > MAX_MENUS) this.menus.delete(this.menus.keys().next().value as string);
  }
}

export function noSettingText(kind: SettingKind): string {
  return `This agent does not offer a ${kind} to choose over ACP. A profile can run it with other settings (agents.profiles in the config, a \`model\` or \`args\`): switch with \`/switch <agent>+<profile>\`.`;
}
