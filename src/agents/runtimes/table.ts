// The runtimes Baton knows, with the exact approval-safe argument vectors the handoff CLI uses.
// Never add a flag that turns approvals off (--yolo, --force, --allow-all-tools, …).

import type { StoredSession } from "../stores/types.js";

export interface RuntimeSpec {
  id: string;
  label: string;
  executable: string;
  /** Baton has a reader for its session store. */
  readable: boolean;
  /** Why Baton will not start this runtime at all, when it will not. */
  notStartable?: string;
  /** Args that reopen a session natively; absent when the CLI cannot. */
  resumeArgs?: (s: StoredSession) => string[];
  /** Args that start a new interactive session whose first message is `prompt`. */
  newArgs?: (prompt: string) => string[];
  /** Why there is no new-session command (shown when one is asked for). */
  noNewSession?: string;
  /** Environment variables removed before launch because they could turn approvals off. */
  envRemove?: string[];
  /** Environment variables set at launch (approval modes). */
  envSet?: Record<string, string>;
  /** The CLI finds the session only when run in its recorded directory. */
  resumeNeedsRecordedDir?: boolean;
  /**
   * Args that let a new session read files outside its working directory (the brief it starts
   * from): its file tools refuse other paths otherwise.
   */
  readArgs?: (dirs: string[]) => string[];
}

const ref = (s: StoredSession): string => s.native?.ref ?? s.id;

export const RUNTIMES: RuntimeSpec[] = [
  { id: "claude", label: "Claude Code", executable: "claude", readable: true, resumeArgs: (s) => ["--resume", s.id], newArgs: (p) => [p] },
  { id: "codex", label: "Codex CLI", executable: "codex", readable: true, resumeArgs: (s) => ["resume", s.id], newArgs: (p) => [p] },
  { id: "opencode", label: "OpenCode", executable: "opencode", readable: true, resumeArgs: (s) => ["--session", s.id], newArgs: (p) => ["--prompt", p] },
  {
    id: "cline",
    label: "Cline",
    executable: "cline",
    readable: true,
    // Cline auto-approves by default; Baton always asks it not to.
    resumeArgs: (s) => ["--tui", "--auto-approve", "false", "--id", s.id],
    newArgs: (p) => ["--tui", "--auto-approve", "false", p],
  },
  { id: "pi", label: "Pi", executable: "pi", readable: true, resumeArgs: (s) => ["--session", ref(s)], newArgs: (p) => ["--", p] },
  { id: "prime", label: "Prime Agent", executable: "prime-agent", readable: true, resumeArgs: (s) => ["--resume", ref(s)], newArgs: (p) => ["--", p] },
  { id: "droid", label: "Factory Droid", executable: "droid", readable: true, resumeArgs: (s) => ["--resume", s.id], newArgs: (p) => [p] },
  {
    id: "copilot",
    label: "GitHub Copilot CLI",
    executable: "copilot",
    readable: true,
    resumeArgs: (s) => [`--resume=${s.id}`],
    newArgs: (p) => ["-i", p],
    // Either variable makes Copilot run tools without asking.
    envRemove: ["COPILOT_ALLOW_ALL", "COPILOT_PLAN_THEN_AUTOPILOT"],
  },
  {
    id: "hermes",
    label: "Hermes Agent",
    executable: "hermes",
    readable: true,
    resumeArgs: (s) => ["--resume", ref(s)],
    noNewSession: "Hermes Agent's CLI cannot start an interactive session with a first message (only one-shot runs), so it cannot continue from a brief",
    envRemove: ["HERMES_YOLO_MODE"],
  },
  {
    id: "dsh",
    label: "DeepSeek Harness",
    executable: "dsh",
    readable: true,
    notStartable: "DeepSeek Harness has no interactive terminal session to start (`dsh --profile headless` answers one task and exits; `dsh web` is a browser UI). Continue its sessions in another runtime with --agent",
  },
  {
    id: "fx",
    label: "fx",
    executable: "fx",
    readable: true,
    resumeArgs: (s) => ["--resume", s.id],
    noNewSession: "fx has no interactive session that starts from a prompt (`fx ask` runs one request and exits), so it cannot continue from a brief",
    resumeNeedsRecordedDir: true,
  },
  {
    id: "grok",
    label: "Grok Build",
    executable: "grok",
    readable: true,
    // The configured mode can be always-approve; `default` asks before running tools.
    resumeArgs: (s) => ["--permission-mode", "default", "--resume", s.id],
    newArgs: (p) => ["--permission-mode", "default", p],
    resumeNeedsRecordedDir: true,
  },
  {
    id: "openclaw",
    label: "OpenClaw Gateway",
    executable: "openclaw",
    readable: true,
    resumeArgs: (s) => ["tui", "--session", ref(s)],
    // The hashed key keeps a handoff out of the agent's shared main session; never --deliver.
    newArgs: (p) => ["tui", "--session", `baton-handoff-${promptHash(p)}`, "--message", p],
  },
  {
    id: "cursor",
    label: "Cursor",
    executable: "cursor-agent",
    readable: true,
    resumeArgs: (s) => ["--resume", s.id],
    newArgs: (p) => [p],
    resumeNeedsRecordedDir: true,
  },
  { id: "omp", label: "Oh My Pi", executable: "omp", readable: false, newArgs: (p) => ["--approval-mode=always-ask", p] },
  {
    id: "gemini",
    label: "Gemini CLI",
    executable: "gemini",
    readable: true,
    // `--resume <id>` looks the session up among the recorded directory's sessions only.
    resumeArgs: (s) => ["--approval-mode", "default", "--resume", s.id],
    resumeNeedsRecordedDir: true,
    newArgs: (p) => ["--approval-mode", "default", "--prompt-interactive", p],
    readArgs: (dirs) => dirs.flatMap((d) => ["--include-directories", d]),
  },
  {
    id: "qwen",
    label: "Qwen Code",
    executable: "qwen",
    readable: true,
    newArgs: (p) => ["--approval-mode", "default", "--prompt-interactive", p],
    readArgs: (dirs) => dirs.flatMap((d) => ["--include-directories", d]),
  },
  { id: "kiro", label: "Kiro", executable: "kiro-cli", readable: false, newArgs: (p) => ["chat", p] },
  { id: "agy", label: "Antigravity CLI", executable: "agy", readable: false, newArgs: (p) => ["--prompt-interactive", p] },
  {
    id: "devin",
    label: "Devin CLI",
    executable: "devin",
    readable: false,
    // Naming the mode keeps DEVIN_PERMISSION_MODE=dangerous from carrying over.
    newArgs: (p) => ["--permission-mode", "auto", "--", p],
  },
  { id: "muse", label: "Muse Code", executable: "muse", readable: false, newArgs: (p) => ["--approval-mode", "on-request", p] },
  { id: "openhands", label: "OpenHands", executable: "openhands", readable: false, newArgs: (p) => ["--task", p] },
  // goose approves everything by default; GOOSE_MODE=approve makes it ask.
  { id: "goose", label: "goose", executable: "goose", readable: false, newArgs: (p) => ["run", "--interactive", "--text", p], envSet: { GOOSE_MODE: "approve" } },
  { id: "kimi", label: "Kimi Code", executable: "kimi", readable: false, notStartable: "Kimi Code can only take a prompt non-interactively, so Baton does not start it" },
  {
    id: "omo",
    label: "Senpi",
    executable: "omo",
    readable: false,
    notStartable: "Senpi moves Pi's agent directory into its own the first time it runs, so Baton does not start it",
  },
  {
    id: "demo",
    label: "Baton demo agent",
    executable: "baton",
    readable: true,
    notStartable: "the demo agent runs inside Baton's chat, not in a terminal; continue its sessions in another runtime with --agent",
  },
];

/** FNV-1a of the prompt, hex: a stable, short session-key suffix (not a security measure). */
export function promptHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}
