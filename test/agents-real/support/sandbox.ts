// The throwaway world the real agent CLIs run in: a private HOME with each CLI's configuration
// written for the fake model servers on loopback (base URLs, placeholder API keys; telemetry,
// update checks and analytics off), workspaces to run in, and the environment that carries all of
// it to Baton's daemon and to terminal runs. Nothing here reads or writes the user's own setup.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeAnthropic } from "../fakes/anthropic.js";
import { fakeChatCompletions } from "../fakes/chat-completions.js";
import { fakeGemini } from "../fakes/gemini.js";
import type { FakeHttpServer } from "../fakes/http.js";
import { fakeOpenAI } from "../fakes/openai.js";

/** This suite's folder (the bench runs a compiled copy of this file from .bench-build/: the CLIs stay here). */
const SUITE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..").replace(`${sep}.bench-build${sep}`, sep);
/** The CLIs this suite installed (test/agents-real/node_modules/.bin). */
const AGENT_BIN = join(SUITE_DIR, "node_modules", ".bin");
/** Claude Code's native binary, so the ACP adapter drives the same version as the terminal. */
/** Where the recorder of the ACP CLIs' wire writes, when asked (see support/acp-recorder/record.mjs). */
const RECORDING_ACP = process.env.BATON_RECORD_ACP;
const ACP_RECORDER_BIN = join(SUITE_DIR, "support", "acp-recorder");
const CLAUDE_EXECUTABLE = join(SUITE_DIR, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe");

export type RealKind = "claude" | "codex" | "gemini" | "opencode" | "qwen";

/** Placeholder keys: the fakes accept anything, real services would reject these. */
/** How long processes still running in a sandbox get to end on their own before it is removed. */
const SURVIVOR_GRACE_MS = 5_000;

export const PLACEHOLDER_KEYS = { anthropic: "sk-ant-fake-key-for-tests", openai: "sk-fake-openai-key-for-tests", gemini: "fake-gemini-key-for-tests", chat: "sk-fake-chat-key-for-tests" };

/** Variables of the runner's own environment that could point a CLI at a real account or service. */
const SCRUBBED_ENV = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "CLAUDE_CODE_USE_BEDROCK",
  "CLAUDE_CODE_USE_VERTEX",
  "CLAUDE_CONFIG_DIR",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "CODEX_API_KEY",
  "CODEX_HOME",
  "CODEX_PATH",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_CLOUD_PROJECT",
  "GOOGLE_GENAI_USE_VERTEXAI",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GEMINI_CLI_HOME",
  "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
  "OPENAI_MODEL",
  "OPENCODE_CONFIG",
  "OPENCODE_CONFIG_DIR",
  "OPENCODE_CONFIG_CONTENT",
  "OPENCODE_PERMISSION",
  "OPENCODE_DB",
  "DASHSCOPE_API_KEY",
  "QWEN_HOME",
  "QWEN_CODE_SYSTEM_SETTINGS_PATH",
  "QWEN_CODE_SYSTEM_DEFAULTS_PATH",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "http_proxy",
  "https_proxy",
  "ALL_PROXY",
  "TMUX",
  "BATON_DATA_DIR",
];

export interface Fakes {
  anthropic: FakeHttpServer;
  openai: FakeHttpServer;
  gemini: FakeHttpServer;
  /** OpenCode's OpenAI-compatible provider (Chat Completions). */
  opencode: FakeHttpServer;
  /** Qwen Code's OpenAI-compatible provider (Chat Completions), a server of its own. */
  qwen: FakeHttpServer;
}

export class Sandbox {
  readonly fakes: Fakes;
  private readonly workspaces: string[] = [];

  private constructor(
    readonly root: string,
    fakes: Fakes,
  ) {
    this.fakes = fakes;
  }

  static async create(): Promise<Sandbox> {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "baton-agents-")));
    const fakes = {
      anthropic: await fakeAnthropic().start(),
      openai: await fakeOpenAI().start(),
      gemini: await fakeGemini().start(),
      opencode: await fakeChatCompletions().start(),
      qwen: await fakeChatCompletions().start(),
    };
    const box = new Sandbox(root, fakes);
    box.writeConfigs();
    return box;
  }

  get home(): string {
    return join(this.root, "home");
  }

  get claudeDir(): string {
    return join(this.home, ".claude");
  }

  get codexHome(): string {
    return join(this.home, ".codex");
  }

  get geminiDir(): string {
    return join(this.home, ".gemini");
  }

  get opencodeConfigDir(): string {
    return join(this.home, ".config", "opencode");
  }

  get qwenDir(): string {
    return join(this.home, ".qwen");
  }

  /** The tmux socket directory: this suite's own tmux server, never the user's. */
  get tmuxDir(): string {
    return join(this.root, "tmux");
  }

  /** Every variable a CLI (or Baton) needs to run here, offline. */
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const scrubbed: NodeJS.ProcessEnv = {};
    for (const name of SCRUBBED_ENV) scrubbed[name] = undefined;
    return {
      ...scrubbed,
      PATH: `${RECORDING_ACP ? `${ACP_RECORDER_BIN}:` : ""}${AGENT_BIN}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      // BATON_RECORD_ACP=<dir>: the ACP CLIs run through a recorder of their wire (support/acp-recorder).
      ...(RECORDING_ACP ? { BATON_RECORD_ACP: RECORDING_ACP, BATON_RECORD_ACP_REAL_BIN: AGENT_BIN } : {}),
      HOME: this.home,
      XDG_CONFIG_HOME: join(this.home, ".config"),
      XDG_DATA_HOME: join(this.home, ".local", "share"),
      XDG_STATE_HOME: join(this.home, ".local", "state"),
      XDG_CACHE_HOME: join(this.home, ".cache"),
      TMUX_TMPDIR: this.tmuxDir,
      TERM: "xterm-256color",
      // Claude Code and its ACP adapter.
      ANTHROPIC_BASE_URL: this.fakes.anthropic.origin,
      ANTHROPIC_API_KEY: PLACEHOLDER_KEYS.anthropic,
      CLAUDE_CONFIG_DIR: this.claudeDir,
      CLAUDE_CODE_EXECUTABLE: CLAUDE_EXECUTABLE,
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // claude-agent-acp starts Claude with --allow-dangerously-skip-permissions (so a client may
      // switch modes later), which Claude refuses under root unless told it runs in a sandbox. It
      // does here (throwaway HOME, loopback only); the permission mode stays "default".
      ...(process.getuid?.() === 0 ? { IS_SANDBOX: "1" } : {}),
      // Codex and codex-acp (which runs the Codex installed here, not the one it bundles).
      CODEX_HOME: this.codexHome,
      CODEX_PATH: join(AGENT_BIN, "codex"),
      FAKE_OPENAI_API_KEY: PLACEHOLDER_KEYS.openai,
      NO_BROWSER: "1",
      // Gemini CLI.
      GEMINI_API_KEY: PLACEHOLDER_KEYS.gemini,
      GOOGLE_GEMINI_BASE_URL: this.fakes.gemini.origin,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      // OpenCode: no models.dev catalogue download, update check or sharing; its provider's key.
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_SHARE: "1",
      // Qwen Code (the provider in its settings names this variable).
      FAKE_CHAT_API_KEY: PLACEHOLDER_KEYS.chat,
      ...extra,
    };
  }

  /** A new, empty working directory, trusted by every CLI (their interactive UIs ask otherwise). */
  workspace(name: string): string {
    const dir = join(this.root, "work", name);
    mkdirSync(dir, { recursive: true });
    this.workspaces.push(dir);
    this.writeConfigs();
    return dir;
  }

  async stop(): Promise<void> {
    await Promise.all(Object.values(this.fakes).map((f) => f.stop()));
  }

  /**
   * Removes everything the sandbox made. An agent's own children (Claude Code under
   * claude-agent-acp, a terminal run's CLI) may still be writing into HOME for a moment after their
   * parent ended: the processes running with this sandbox's HOME get a grace period, then are
   * killed and named, so none outlives the suite.
   */
  async remove(): Promise<void> {
    const deadline = Date.now() + SURVIVOR_GRACE_MS;
    while (this.survivors().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const left = this.survivors();
    for (const p of left) {
      console.warn(`sandbox: killing ${p.pid} (${p.command}), still running after its test`);
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
    rmSync(this.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }

  /** Processes started with this sandbox's HOME (Linux /proc; elsewhere none are found). */
  private survivors(): Array<{ pid: number; command: string }> {
    const found: Array<{ pid: number; command: string }> = [];
    let pids: string[] = [];
    try {
      pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
    } catch {
      return found;
    }
    for (const pid of pids) {
      try {
        if (!readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`HOME=${this.home}`)) continue;
        found.push({ pid: Number(pid), command: readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim().slice(0, 120) });
      } catch {
        // Ended, or not ours to read.
      }
    }
    return found;
  }

  private writeConfigs(): void {
    for (const d of [this.home, this.claudeDir, this.codexHome, this.geminiDir, this.opencodeConfigDir, this.qwenDir, this.tmuxDir]) mkdirSync(d, { recursive: true, mode: 0o700 });
    // Claude Code: onboarding done, the placeholder key approved, every workspace trusted.
    const claudeJson = join(this.claudeDir, ".claude.json");
    const existing = readJson(claudeJson);
    const projects: Record<string, unknown> = { ...(existing.projects as object) };
    for (const dir of this.workspaces) projects[dir] = { ...(projects[dir] as object), hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, projectOnboardingSeenCount: 1 };
    writeFileSync(
      claudeJson,
      JSON.stringify(
        { ...existing, hasCompletedOnboarding: true, theme: "dark", numStartups: 5, customApiKeyResponses: { approved: [PLACEHOLDER_KEYS.anthropic.slice(-20)], rejected: [] }, projects },
        null,
        2,
      ),
    );
    // Codex: the fake provider, no plugins, analytics, update checks or background daemon.
    const trusted = this.workspaces.map((dir) => `[projects.${JSON.stringify(dir)}]\ntrust_level = "trusted"\n`).join("\n");
    writeFileSync(
      join(this.codexHome, "config.toml"),
      [
        `model = "gpt-6-sol"`, // a model Codex knows (its real tool set, no fallback warning), and its newest: the UI does not switch to another
        `model_provider = "fake"`,
        `check_for_update_on_startup = false`,
        ``,
        `[model_providers.fake]`,
        `name = "fake"`,
        `base_url = "${this.fakes.openai.origin}/v1"`,
        `env_key = "FAKE_OPENAI_API_KEY"`,
        `wire_api = "responses"`,
        ``,
        `[features]`,
        `plugins = false`,
        `daemon_auto_start = false`,
        ``,
        `[analytics]`,
        `enabled = false`,
        ``,
        trusted,
      ].join("\n"),
    );
    // Gemini CLI: API-key auth (else `-p` exits 41), no telemetry, statistics or update checks.
    // Session retention off: Gemini 0.61's cleanup at start deletes every file of a session that
    // has a file without conversation, and resuming a session in a later minute (ACP session/load,
    // `gemini --resume`) leaves exactly such a file. docs/session-stores.md tells users the same.
    writeFileSync(
      join(this.geminiDir, "settings.json"),
      JSON.stringify(
        {
          security: { auth: { selectedType: "gemini-api-key" } },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, sessionRetention: { enabled: false } },
        },
        null,
        2,
      ),
    );
    this.writeChatCompletionsConfigs();
  }

  /** OpenCode and Qwen Code: an OpenAI-compatible provider on their fake, its key read from the environment. */
  private writeChatCompletionsConfigs(): void {
    writeFileSync(
      join(this.opencodeConfigDir, "opencode.json"),
      JSON.stringify(
        {
          provider: {
            fake: {
              npm: "@ai-sdk/openai-compatible",
              name: "Fake",
              options: { baseURL: `${this.fakes.opencode.origin}/v1`, apiKey: "{env:FAKE_CHAT_API_KEY}" },
              models: { "fake-model": { name: "Fake model", tool_call: true } },
            },
          },
          model: "fake/fake-model",
          small_model: "fake/fake-model",
          autoupdate: false,
          share: "disabled",
        },
        null,
        2,
      ),
    );
    writeFileSync(
      join(this.qwenDir, "settings.json"),
      JSON.stringify(
        {
          security: { auth: { selectedType: "openai" } },
          model: { name: "fake-model" },
          modelProviders: { openai: [{ id: "fake-model", name: "Fake model", baseUrl: `${this.fakes.qwen.origin}/v1`, envKey: "FAKE_CHAT_API_KEY" }] },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
          // Its background model calls after each turn (memory extraction, next-prompt suggestions)
          // would take scripted steps and CPU; they are not what the suite checks.
          memory: { enableManagedAutoMemory: false },
          ui: { enableFollowupSuggestions: false },
        },
        null,
        2,
      ),
    );
  }
}

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The installed version of one of this suite's packages. */
export function installedVersion(pkg: string): string {
  return (JSON.parse(readFileSync(join(SUITE_DIR, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
}
