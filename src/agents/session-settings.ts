// The mode and model of one ACP session, as the agent advertises them: session modes
// (`modes` + `session/set_mode` + `current_mode_update`), session config options (`configOptions`
// of category `mode` / `model` + `session/set_config_option` + `config_option_update`), and the
// older model selector some agents still speak (`models` + `session/set_model`, unstable).
import type { SessionConfigOption, SessionUpdate } from "@agentclientprotocol/sdk";

export type SettingKind = "mode" | "model";

export interface SettingChoice {
  id: string;
  name: string;
  description?: string;
}

export interface SessionSetting {
  kind: SettingKind;
  current?: string;
  choices: SettingChoice[];
}

/** How a setting is changed: the ACP request to make. */
export interface SettingRequest {
  method: string;
  params: Record<string, unknown>;
}

/** The older, unstable model selector (`session/new` → `models`). */
interface LegacyModels {
  currentModelId?: string;
  availableModels?: Array<{ modelId: string; name?: string; description?: string | null }>;
}

/** What session/new, load and resume answer about settings. */
export interface SettingsResponse {
  modes?: { currentModeId: string; availableModes: Array<{ id: string; name: string; description?: string | null }> } | null;
  configOptions?: SessionConfigOption[] | null;
  models?: LegacyModels | null;
}

interface Source {
  setting: SessionSetting;
  request(sessionId: string, id: string): SettingRequest;
}

export class SessionSettings {
  private modes?: Source;
  private models?: Source;
  private config = new Map<SettingKind, Source>();
  /** Switches Baton asked for and the agent has not confirmed yet: their updates are no news. */
  private readonly expected = new Map<SettingKind, string>();
  /** The agent changed a setting by itself (a plan finished, a tool that switches modes). */
  onAgentChange?: (kind: SettingKind, id: string) => void;

  /** Takes what the agent advertised when the session opened (replacing what an older session said). */
  absorb(response: SettingsResponse | undefined): void {
    this.modes = undefined;
    this.models = undefined;
    this.config.clear();
    if (!response) return;
    const { modes, models, configOptions } = response;
    if (modes && modes.availableModes.length > 0) {
      this.modes = {
        setting: { kind: "mode", current: modes.currentModeId, choices: modes.availableModes.map((m) => ({ id: m.id, name: m.name, description: m.description ?? undefined })) },
        request: (sessionId, modeId) => ({ method: "session/set_mode", params: { sessionId, modeId } }),
      };
    }
    if (models?.availableModels && models.availableModels.length > 0) {
      this.models = {
        setting: { kind: "model", current: models.currentModelId, choices: models.availableModels.map((m) => ({ id: m.modelId, name: m.name ?? m.modelId, description: m.description ?? undefined })) },
        request: (sessionId, modelId) => ({ method: "session/set_model", params: { sessionId, modelId } }),
      };
    }
    this.absorbConfig(configOptions ?? []);
  }

  /** Applies a session/update; true when it was about settings. */
  apply(update: SessionUpdate): boolean {
    const before = { mode: this.get("mode")?.current, model: this.get("model")?.current };
    if (update.sessionUpdate === "current_mode_update") {
      if (this.modes) this.modes.setting.current = update.currentModeId;
    } else if (update.sessionUpdate === "config_option_update") {
      this.absorbConfig(update.configOptions);
    } else return false;
    for (const kind of ["mode", "model"] as const) {
      const now = this.get(kind)?.current;
      if (now === undefined || now === before[kind]) continue;
      if (this.expected.get(kind) === now) this.expected.delete(kind);
      else this.onAgentChange?.(kind, now);
    }
    return true;
  }

  /** Baton is about to ask for this switch: the update that confirms it is not the agent's own change. */
  expect(kind: SettingKind, id: string): void {
    this.expected.set(kind, id);
  }

  /** The setting as the agent advertises it now (config options win over the older channels). */
  get(kind: SettingKind): SessionSetting | undefined {
    return this.source(kind)?.setting;
  }

  /** The request that switches `kind` to `id`; undefined when the agent does not advertise it. */
  request(kind: SettingKind, sessionId: string, id: string): SettingRequest | undefined {
    return this.source(kind)?.request(sessionId, id);
  }

  /** The switch was accepted: remember it (agents need not send an update for a change they were asked for). */
  chosen(kind: SettingKind, id: string, answer?: { configOptions?: SessionConfigOption[] | null }): void {
    this.expected.delete(kind);
    const source = this.source(kind);
    if (source) source.setting.current = id;
    if (answer?.configOptions) this.absorbConfig(answer.configOptions);
  }

  private source(kind: SettingKind): Source | undefined {
    return this.config.get(kind) ?? (kind === "mode" ? this.modes : this.models);
  }

  private absorbConfig(options: SessionConfigOption[]): void {
    this.config.clear();
    for (const option of options) {
      const kind = option.category === "mode" || option.category === "model" ? option.category : undefined;
      if (!kind || option.type !== "select" || this.config.has(kind)) continue;
      const choices: SettingChoice[] = [];
      for (const entry of option.options) {
        const group = "group" in entry ? entry.options : [entry];
        for (const choice of group) choices.push({ id: choice.value, name: choice.name, description: choice.description ?? undefined });
      }
      const configId = option.id;
      this.config.set(kind, {
        setting: { kind, current: option.currentValue, choices },
        request: (sessionId, value) => ({ method: "session/set_config_option", params: { sessionId, configId, value } }),
      });
    }
  }
}
