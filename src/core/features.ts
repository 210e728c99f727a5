// ChatFeatures for the commands: bindings, mode and model, files into the chat, usage, schedules
// and voice notes, each built in its own module; this one wires them to the core's parts and puts
// them behind the interface.
import { join } from "node:path";
import type { Machines } from "../agents/machines/index.js";
import type { SessionSetting, SettingKind } from "../agents/session-settings.js";
import type { AgentHost } from "../agents/host.js";
import type { Supervisor } from "../agents/supervisor.js";
import type { ChatFeatures, NewThreadSpec } from "../commands/features.js";
import type { AgentsApi, LimitsApi, LocalFile, TurnTicket, WorkspacesApi } from "../commands/context.js";
import type { BatonConfig } from "../config/schema.js";
import type { Metrics } from "../kernel/metrics.js";
import { registerSecretValues, urlCredentials } from "../kernel/secrets.js";
import { CommandError, userMessageOf } from "../kernel/errors.js";
import type { PlatformCursors, PlatformLogger } from "../platforms/contract.js";
import type { TurnUsage } from "../threads/chat-state.js";
import type { ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import type { BatonAgents } from "./agents.js";
import { Bindings, describeBinding } from "./bindings.js";
import type { Outbox } from "./delivery/outbox.js";
import { OutboundFiles, type StagedFile } from "./outfiles.js";
import { megabytes } from "../render/sizes.js";
import { Scheduler } from "./schedules.js";
import { noSettingText, SessionSettingsService } from "./settings.js";
import { formatUsageTotals } from "./usage.js";
import { ENABLE_VOICE_TEXT, isVoiceNote, Transcriber } from "./voice.js";
import type { Workspaces } from "./workspaces.js";

/** The core's parts the features are built on, and how to reach a route's or a thread's chats. */
export interface FeatureHost {
  config: BatonConfig;
  dataDir: string;
  registry: ThreadRegistry;
  supervisor: Supervisor;
  /** The thread's host with its session open, started now when none runs. */
  openHost(thread: ThreadRecord): Promise<AgentHost>;
  agents: BatonAgents;
  workspaces: Workspaces;
  /** Before a thread's first prompt: its own worktree, when isolation asks for one (thread-worktrees.ts). */
  beforePrompt(thread: ThreadRecord, prompt: string): Promise<string | undefined>;
  /** Where a thread's agent works (its own worktree, when it has one): /file reads from there. */
  workdir(thread: ThreadRecord): string;
  machines: Machines;
  log: PlatformLogger;
  metrics: Metrics;
  outboxOf(route: string): Outbox | undefined;
  isAllowed(userId: string, route: string): Promise<boolean>;
  /** A notice on every route of a thread. */
  notify(thread: ThreadRecord, text: string): void;
  /** With store.url: positions kept for the next leader (when schedules last ran). */
  cursors?: PlatformCursors;
  /** Limits per person: a chat schedule's prompt counts toward its maker's. */
  limits: LimitsApi;
}

/** The features' services the core keeps (turns post files, presses reach menus, start and stop run schedules). */
export interface ChatFeatureParts {
  outboundFiles: OutboundFiles;
  settings: SessionSettingsService;
  scheduler: Scheduler;
  features: ChatFeatures;
  /** A turn's usage: kept on the thread (for /status) and counted per agent (for /metrics). */
  recordUsage(thread: ThreadRecord, usage: TurnUsage): Promise<void>;
  /**
   * A reload: bindings, schedules (and their limits and time zone) and voice as `config` says.
   * Throws a ConfigError, changing nothing, when a binding names an agent that does not exist.
   */
  reconfigure(config: BatonConfig): void;
}

const scheduleLimits = (config: BatonConfig) => ({ minIntervalMs: config.schedule_limits.min_interval, perRoute: config.schedule_limits.per_route, perPerson: config.schedule_limits.per_person });

function transcriberFor(config: BatonConfig): Transcriber | undefined {
  const transcription = config.voice.transcription;
  registerSecretValues([transcription?.api_key, ...urlCredentials(transcription?.url)]);
  return transcription ? new Transcriber(transcription) : undefined;
}

export function wireChatFeatures(host: FeatureHost): ChatFeatureParts {
  const { config, registry, log } = host;
  const outboundFiles = new OutboundFiles(join(host.dataDir, "outbound"), host.machines, config.files.max_upload_bytes);
  outboundFiles.open();
  const settings = new SessionSettingsService(host.supervisor, registry, host.notify, host.openHost);
  const scheduler = new Scheduler({
    registry,
    config: config.schedules,
    limits: scheduleLimits(config),
    defaultTimeZone: config.time_zone,
    hasPlatform: (route) => host.outboxOf(route) !== undefined,
    isAllowed: host.isAllowed,
    notify: (route, text) => void host.outboxOf(route)?.post(route, { text, kind: "notice" }),
    threadFor: async (route) => registry.threadForRoute(route) ?? registry.create({ ...(await features.newThreadSpec(route)), origin: "schedule" }, route),
    submit: (thread, text, ticket) => void submitScheduled(host, thread, text, ticket),
    admit: (user, route, about) => host.limits.admit(user, route, about),
    drained: (id) => host.supervisor.drained(id),
    log,
    lastRuns: host.cursors,
  });
  const deps: FeatureDeps = {
    bindings: new Bindings(config.bindings, host.agents),
    workspaces: host.workspaces,
    agents: host.agents,
    settings,
    files: outboundFiles,
    outboxOf: host.outboxOf,
    scheduler,
    transcriber: transcriberFor(config),
    openHost: host.openHost,
    workdir: host.workdir,
    log,
  };
  const features = chatFeatures(deps);
  const reconfigure = (next: BatonConfig) => {
    // First what can refuse the new config, so a refusal changes nothing.
    const bindings = new Bindings(next.bindings, host.agents);
    Object.assign(deps, { bindings, transcriber: transcriberFor(next) });
    scheduler.reconfigure({ config: next.schedules, limits: scheduleLimits(next), defaultTimeZone: next.time_zone });
  };
  const recordUsage = async (thread: ThreadRecord, usage: TurnUsage) => {
    // Cost is counted as the increase of the session's running total.
    const before = thread.session ? thread.usage.costs[thread.session] : undefined;
    await registry.recordUsage(thread.id, usage);
    const added = usage.cost && (!before || before.currency === usage.cost.currency) ? { amount: usage.cost.amount - (before?.amount ?? 0), currency: usage.cost.currency } : undefined;
    host.metrics.agentUsage(thread.agent, { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, cost: added });
  };
  return { outboundFiles, settings, scheduler, features, recordUsage, reconfigure };
}

interface FeatureDeps {
  bindings: Bindings;
  workspaces: WorkspacesApi;
  agents: Pick<AgentsApi, "defaultHost">;
  settings: SessionSettingsService;
  files: OutboundFiles;
  outboxOf(route: string): Outbox | undefined;
  scheduler: Scheduler;
  transcriber?: Transcriber;
  openHost(thread: ThreadRecord): Promise<AgentHost>;
  workdir(thread: ThreadRecord): string;
  log: PlatformLogger;
}

function chatFeatures(deps: FeatureDeps): ChatFeatures {
  // deps.bindings is read at each call: a reload replaces it.
  const { settings, scheduler } = deps;
  return {
    binding: (route) => deps.bindings.forRoute(route),

    async newThreadSpec(route): Promise<NewThreadSpec> {
      const binding = deps.bindings.forRoute(route);
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
      await postStaged(outbox, route, await deps.files.fromWorkspace(deps.workdir(thread), path), `\`${path}\``);
    },

    async sendData(route, name, data, caption) {
      const outbox = deps.outboxOf(route);
      if (!outbox) throw new CommandError("This chat's platform is not running.");
      await postStaged(outbox, route, await deps.files.fromData(name, "text/plain", data), caption);
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
        const host = await deps.openHost(thread);
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

/** Posts a staged file into the chat and waits until it is there; a CommandError when it cannot go. */
async function postStaged(outbox: Outbox, route: string, file: StagedFile, caption: string): Promise<void> {
  try {
    const max = outbox.adapter.capabilities.maxUploadBytes;
    if (max !== undefined && file.size > max) throw new CommandError(`${caption} is ${megabytes(file.size)}; this chat takes files up to ${megabytes(max)}.`);
    const slot = outbox.postFile(route, { ...file, caption });
    await slot.settled();
    if (slot.failed) throw new CommandError(`Could not post ${caption}: ${userMessageOf(slot.error)}`);
  } finally {
    file.release();
  }
}

/** A scheduled prompt goes the way a typed one does: into the thread's worktree first, when it gets one. */
async function submitScheduled(host: FeatureHost, thread: ThreadRecord, text: string, ticket: TurnTicket | undefined): Promise<void> {
  try {
    const note = await host.beforePrompt(thread, text);
    if (note) host.notify(thread, note);
  } catch (error) {
    ticket?.end(false);
    host.log.warn({ err: error, thread: thread.id }, "could not make a thread's worktree for a scheduled prompt");
    host.notify(thread, `⚠️ The scheduled prompt did not run: ${userMessageOf(error)}`);
    return;
  }
  host.agents.submit(thread, [{ type: "text", text }], undefined, ticket);
}
