// What differs between the real agents in this suite: which fake model serves them, how their
// model asks for a shell command, and how a one-shot terminal run is started (with Baton's MCP
// tool allowed, for handovers).
import type { Conversation, Reply } from "../fakes/brain.js";
import type { FakeHttpServer } from "../fakes/http.js";
import type { RealKind, Sandbox } from "./sandbox.js";

export interface KindProfile {
  kind: RealKind;
  label: string;
  fake(box: Sandbox): FakeHttpServer;
  /** The model's tool call that runs `command` in a shell. */
  shell(command: string): Reply;
  /** Arguments of a one-shot terminal run answering `prompt` (after `baton launch <kind> --`). */
  oneShot(prompt: string): string[];
  /** `baton setup <kind>` must run before `baton launch` can hand the CLI Baton's MCP server. */
  needsSetup?: boolean;
  /** Rejecting a command ends the turn (the CLI waits for the user) instead of telling the model. */
  rejectEndsTurn?: boolean;
  /**
   * The CLI's own ACP resume can fail (Gemini CLI 0.61: a session/load in the same minute as the
   * session file's last header): Baton then starts a new session from a brief, and says so.
   */
  resumeMayFail?: boolean;
}

/**
 * The model's next step of a handover: call Baton's prepare_handover (each CLI names MCP tools its
 * own way; Codex offers them only after a tool_search), then show the line the tool answered.
 */
const MAX_TOOL_SEARCHES = 10;

/** Code-mode JavaScript calling one of Codex's tools and showing what it returned. */
function codeModeCall(tool: string, args: Record<string, unknown>): string {
  return `const result = await tools.${tool}(${JSON.stringify(args)});\ntext(typeof result === "string" ? result : JSON.stringify(result));\n`;
}
/** A pickup line as Baton writes it (its code alphabet has no O, I, 0 or 1: not the `/pickup CODE` of a tool description). */
export const PICKUP_LINE = /\/pickup ([ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{4})\b/;

export function handoverStep(cwd: string, agentKind: string): (c: Conversation) => Reply {
  return (c) => {
    const code = PICKUP_LINE.exec(c.toolResults.join("\n"))?.[0];
    if (code) return { text: `Type this in the chat: ${code}` };
    const tool = c.tools.find((t) => t.endsWith("prepare_handover"));
    if (tool) return { tool, input: { cwd, agent_kind: agentKind } };
    // Qwen Code keeps MCP tools deferred: found by tool_search, then called through tool_call.
    const found = /"name":"([^"]*prepare_handover)"/.exec(c.toolResults.join("\n").replaceAll('\\"', '"'))?.[1];
    if (found && c.tools.includes("tool_call")) return { tool: "tool_call", input: { name: found, arguments: { cwd, agent_kind: agentKind } } };
    // Codex finds its MCP tools only once their servers have started: try again until found.
    const tries = c.toolResults.length;
    if (tries >= MAX_TOOL_SEARCHES) throw new Error(`no prepare_handover after ${tries} tries: ${c.toolResults.join(" | ")}`);
    const delayMs = tries ? 1000 : 0;
    if (c.tools.includes("functions/exec")) return { tool: "exec", input: { input: codeModeCall("mcp__baton__prepare_handover", { cwd, agent_kind: agentKind }) }, delayMs };
    if (c.tools.includes("tool_search")) return { tool: "tool_search", input: { query: "prepare_handover" }, delayMs };
    throw new Error(`the agent offered no prepare_handover tool; tools: ${c.tools.join(", ")}; results: ${c.toolResults.join(" | ")}`);
  };
}

export const CLAUDE: KindProfile = {
  kind: "claude",
  label: "Claude Code",
  fake: (box) => box.fakes.anthropic,
  shell: (command) => ({ tool: "Bash", input: { command, description: "Run a command" } }),
  // -p mode runs no tool without approval, except those allowed here.
  oneShot: (prompt) => ["-p", prompt, "--allowedTools", "mcp__baton__prepare_handover"],
};

export const GEMINI: KindProfile = {
  kind: "gemini",
  label: "Gemini CLI",
  fake: (box) => box.fakes.gemini,
  shell: (command) => ({ tool: "run_shell_command", input: { command, description: "Run a command" } }),
  oneShot: (prompt) => ["-p", prompt, "--allowed-mcp-server-names", "baton", "--allowed-tools", "prepare_handover"],
  needsSetup: true,
  resumeMayFail: true,
};

export const CODEX: KindProfile = {
  kind: "codex",
  label: "Codex",
  fake: (box) => box.fakes.openai,
  // Codex's current model works in "code mode": one `exec` tool runs JavaScript that calls the
  // others. Inside its workspace sandbox Codex runs commands without asking; escalated, it asks.
  shell: (command) => ({ tool: "exec", input: { input: codeModeCall("exec_command", { cmd: command, sandbox_permissions: "require_escalated", justification: "Run this command?" }) } }),
  // `exec` never asks, so an MCP tool that needs approval fails there; this run approves Baton's one tool.
  oneShot: (prompt) => ["-c", 'mcp_servers.baton.tools.prepare_handover.approval_mode="approve"', "exec", "--skip-git-repo-check", prompt],
  rejectEndsTurn: true,
};

export const OPENCODE: KindProfile = {
  kind: "opencode",
  label: "OpenCode",
  fake: (box) => box.fakes.opencode,
  shell: (command) => ({ tool: "bash", input: { command, description: "Run a command" } }),
  // `opencode run` quotes a message argument that holds spaces: the prompt goes word by word.
  oneShot: (prompt) => ["run", ...prompt.split(" ")],
  // A rejected permission stops OpenCode's loop for this turn.
  rejectEndsTurn: true,
};

export const QWEN: KindProfile = {
  kind: "qwen",
  label: "Qwen Code",
  fake: (box) => box.fakes.qwen,
  shell: (command) => ({ tool: "run_shell_command", input: { command, description: "Run a command" } }),
  // -p mode runs no tool that asks, except those allowed here.
  oneShot: (prompt) => ["-p", prompt, "--allowed-tools", "mcp__baton__prepare_handover"],
  // Qwen Code (as Gemini CLI did) cancels the turn when a tool call is rejected.
  rejectEndsTurn: true,
};
