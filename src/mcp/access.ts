// Who may call which MCP tool: the one table (docs/mcp-access.md shows it to users). A token's
// kind follows from whom it names: the agent of a chat thread, one of its subagents, or a terminal
// (`baton mcp` with the data dir's token, or another machine's token). No tool lets an agent widen
// what the config allows: `register_workspace` from a thread's agent is a proposal a person confirms.
import type { McpCaller } from "../core/tool-calls.js";
import type { ToolName } from "./tools.js";

export type TokenKind = "thread" | "subagent" | "terminal";

/** `yes`: runs. `proposes`: outside the config's reach it asks a person in the chat. `no`: not offered, refused if called. */
type ToolAccess = "yes" | "proposes" | "no";

export const TOOL_ACCESS: Readonly<Record<ToolName, Readonly<Record<TokenKind, ToolAccess>>>> = {
  get_session_id: { thread: "yes", subagent: "yes", terminal: "yes" },
  prepare_handover: { thread: "yes", subagent: "no", terminal: "yes" },
  // Inside the roots it only names a directory; outside them only a thread's agent may ask (a proposal).
  register_workspace: { thread: "proposes", subagent: "no", terminal: "yes" },
  initialize_subagents: { thread: "yes", subagent: "no", terminal: "no" },
  wait_for_subagents: { thread: "yes", subagent: "no", terminal: "no" },
  cancel_subagents: { thread: "yes", subagent: "no", terminal: "no" },
};

export function tokenKindOf(caller: McpCaller): TokenKind {
  if (!caller.thread) return "terminal";
  return caller.subagent ? "subagent" : "thread";
}

export function mayCall(kind: TokenKind, tool: ToolName): boolean {
  return TOOL_ACCESS[tool][kind] !== "no";
}
