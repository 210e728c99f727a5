// ChatFeatures for the commands: bindings, mode and model, files into the chat, usage, schedules
// and voice notes, each built in its own module; this one only puts them behind the interface.
import type { SessionSetting, SettingKind } from "../agents/session-settings.js";
import type { Supervisor } from "../agents/supervisor.js";
import type { ChatFeatures, NewThreadSpec } from "../commands/features.js";
import type { AgentsApi, LocalFile, WorkspacesApi } from "../commands/context.js";
import { CommandError, userMessageOf } from "../kernel/errors.js";
import type { PlatformLogger } from "../platforms/contract.js";
import type { ThreadRecord } from "../threads/registry.js";
import { describeBinding, type Bindings } from "./bindings.js";
import type { Outbox } from "./delivery/outbox.js";
import { megabytes, type OutboundFiles } from "./outfiles.js";
import type { Scheduler } from "./schedules.js";
import { noSettingText, type SessionSettingsService } from "./settings.js";
import { formatUsageTotals } from "./usage.js";
import { ENABLE_VOICE_TEXT, isVoiceNote, type Transcriber } from "./voice.js";

export interface FeatureDeps {
  bindings: Bindings;
  workspaces: WorkspacesApi;
  agents: Pick<AgentsApi, "defaultHost">;
  settings: SessionSettingsService;
  files: OutboundFiles;
  outboxOf(route: string): Outbox | undefined;
  scheduler: Scheduler;
  transcriber?: Transcriber;
  supervisor: Supervisor;
  log: PlatformLogger;
}

export function chatFeatures(deps: FeatureDeps): ChatFeatures {
  const { bindings, settings, scheduler } = deps;
  return {
    binding: (route) => bindings.forRoute(route),

    async newThreadSpec(route): Promise<NewThreadSpec> {
      const binding = bindings.forRoute(route);
      if (!binding) return { workspace: await deps.workspaces.default(), ...deps.agents.defaultHost() };
      let workspace: string;
      try {
        workspace = await deps.workspaces.resolve(binding.workspace);
      } catch (error) {
        throw new CommandError(`This chat is bound to \`${binding.workspace}\` by ${describeBinding(binding)}, and that cannot be used: ${userMessageOf(error)}`, { cause: error });
      }
      return { workspace, ...(binding.host ?? deps.agents.defaultHost()), binding: binding.match };
    },

    setting: (thread, kind) => settings.view(thread, kind),
    currentSetting: (thread, kind) => settings.current(thread, kind),
    changeSetting: (thread, kind, id) => settings.change(thread, kind, id),
    settingMenu: (thread: ThreadRecord, setting: SessionSetting, withButtons: boolean) => settings.menu(thread, setting, withButtons),
    noSettingText: (kind: SettingKind) => noSettingText(kind),

    async sendFile(route, thread, path) {
      const outbox = deps.outboxOf(route);
      if (!outbox) throw new CommandError("This chat's platform is not running.");
      const file = await deps.files.fromWorkspace(thread.workspace, path);
      try {
        const max = outbox.adapter.capabilities.maxUploadBytes;
        if (max !== undefined && file.size > max) throw new CommandError(`\`${path}\` is ${megabytes(file.size)}; this chat takes files up to ${megabytes(max)}.`);
        const slot = outbox.postFile(route, { ...file, caption: `\`${path}\`` });
        await slot.settled();
        if (slot.failed) throw new CommandError(`Could not post \`${path}\`: ${userMessageOf(slot.error)}`);
      } finally {
        file.release();
      }
    },

    usageSummary: (thread) => formatUsageTotals(thread.usage),

    schedules: {
      list: (route) => scheduler.list(route),
      add: (route, cron, prompt, createdBy, timeZone) => scheduler.add(route, cron, prompt, createdBy, timeZone),
      remove: (route, id) => scheduler.remove(route, id),
    },

    async voiceNotes(thread, files) {
      const out = { files: [] as LocalFile[], transcripts: [] as string[], problems: [] as string[] };
      const notes = files.filter(isVoiceNote);
      out.files = files.filter((f) => !isVoiceNote(f));
      if (notes.length === 0) return out;
      if (!deps.transcriber) {
        const host = deps.supervisor.host(thread.id) ?? (await deps.supervisor.open(thread.id));
        if (host.supportsAudio) out.files.push(...notes);
        else out.problems.push(ENABLE_VOICE_TEXT);
        return out;
      }
      for (const note of notes) {
        try {
          out.transcripts.push(await deps.transcriber.transcribe(note));
        } catch (error) {
          deps.log.warn({ err: error, file: note.name }, "could not transcribe a voice note");
          out.problems.push(`Could not transcribe ${note.name}: ${userMessageOf(error)}`);
        }
      }
      return out;
    },
  };
}
