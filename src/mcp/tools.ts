// The handover MCP tools: names, schemas and descriptions in one place, served by the daemon
// (Streamable HTTP) and by `baton mcp` (stdio, forwarding to the daemon) alike.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { userMessageOf } from "../kernel/errors.js";
import { agentKinds } from "../agents/products/index.js";
import type { McpCaller, ToolReply } from "../core/tool-calls.js";
import { mayCall, tokenKindOf, type TokenKind } from "./access.js";
import {
  cancelSubagentsShape,
  initializeSubagentsShape,
  waitForSubagentsShape,
  type CancelSubagentsArgs,
  type InitializeSubagentsArgs,
  type SubagentTools,
  type SubagentToolName,
  type WaitForSubagentsArgs,
} from "../core/subagents/tools.js";

const kindIds = agentKinds().map((k) => k.id);
const AGENT_KINDS_TEXT = `${kindIds.slice(0, -1).join(", ")} or ${kindIds[kindIds.length - 1]}`;

const launchId = z.string().optional().describe("Filled in by `baton mcp` from BATON_LAUNCH_ID when the agent runs under `baton launch`; leave it out.");

const getSessionIdShape = {
  agent_kind: z.string().optional().describe(`Which agent you are: ${AGENT_KINDS_TEXT}. Defaults to BATON_AGENT_KIND under \`baton launch\`.`),
  cwd: z.string().optional().describe("Absolute path of the directory the session runs in (your current working directory)."),
  session_id: z.string().optional().describe("Your session id if you know it (full id or a unique prefix of at least 6 characters); Baton checks it against the agent's session store."),
  launch_id: launchId,
};

const prepareHandoverShape = {
  cwd: z.string().describe("Absolute path of the directory this session runs in (your current working directory)."),
  agent_kind: z.string().describe(`Which agent you are: ${AGENT_KINDS_TEXT}.`),
  session_id: z.string().optional().describe("This session's id, if you know it. Leave it out and Baton picks the newest session of this agent in this directory."),
  profile: z.string().optional().describe("A Baton agent profile name from its config, to run the picked-up session with (optional)."),
  launch_id: launchId,
};

const registerWorkspaceShape = {
  cwd: z.string().describe("Absolute path of the directory to allow as a Baton workspace."),
  name: z.string().optional().describe("A short name to show for it (default: the directory's name)."),
};

export type GetSessionIdArgs = { agent_kind?: string; cwd?: string; session_id?: string; launch_id?: string };
export type PrepareHandoverArgs = { cwd: string; agent_kind: string; session_id?: string; profile?: string; launch_id?: string };
export type RegisterWorkspaceArgs = { cwd: string; name?: string };

/** `caller` is the machine the request came from (its token says which); `local` for this one. */
export interface HandoverTools {
  getSessionId(args: GetSessionIdArgs, caller?: string): Promise<ToolReply>;
  prepareHandover(args: PrepareHandoverArgs, caller?: string): Promise<ToolReply>;
  /** `caller` in full: a thread's agent proposes what the config does not allow. */
  registerWorkspace(args: RegisterWorkspaceArgs, caller?: McpCaller): Promise<ToolReply>;
}

const HANDOVER_TOOL_NAMES = ["get_session_id", "prepare_handover", "register_workspace"] as const;
export type ToolName = (typeof HANDOVER_TOOL_NAMES)[number] | SubagentToolName;

/**
 * How a server answers a tool call: the daemon runs it (for the caller its token names), `baton mcp`
 * forwards it. `signal` aborts when the client went away.
 */
export type ToolCall = (name: ToolName, args: Record<string, unknown>, caller?: McpCaller, signal?: AbortSignal) => Promise<CallToolResult>;

/**
 * The MCP SDK loads on the first MCP request, not with the daemon: most daemons never get one.
 * `kind`: whose token the client holds; it is offered only the tools that kind may call (access.ts).
 */
export async function newHandoverMcpServer(call: ToolCall, version: string, kind: TokenKind): Promise<McpServer> {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const server = new McpServer({ name: "baton", version });
  registerHandoverTools(server, call, kind);
  if (mayCall(kind, "initialize_subagents")) registerSubagentTools(server, call);
  return server;
}

function registerHandoverTools(server: McpServer, call: ToolCall, kind: TokenKind): void {
  server.registerTool(
    "get_session_id",
    {
      title: "Find this agent session's id",
      description:
        "Returns the id of the current agent session as Baton sees it: the session_id you pass (checked against the agent's store), " +
        "else the session of this `baton launch` run, else the newest session of this agent in this directory.",
      inputSchema: getSessionIdShape,
    },
    (args) => call("get_session_id", args),
  );
  if (mayCall(kind, "prepare_handover"))
    server.registerTool(
      "prepare_handover",
      {
        title: "Hand this session over to a chat",
        description:
          "Creates a one-time pickup code so the user can continue THIS session from a chat connected to Baton (Slack, Telegram, the web chat, …). " +
          "Show the user the returned line (`/pickup CODE`) exactly; it works once, within 2 minutes. " +
          "If the directory is not allowed, tell the user: only Baton's config (workspaces.roots) or a person's confirmation in the chat can allow it.",
        inputSchema: prepareHandoverShape,
      },
      (args) => call("prepare_handover", args),
    );
  if (mayCall(kind, "register_workspace"))
    server.registerTool(
      "register_workspace",
      {
        title: "Name a Baton workspace, or propose one",
        description:
          "Gives a directory inside Baton's allowed workspaces a name for `/workspace --switch` (Baton keeps it across restarts). " +
          "A directory outside them is never allowed by this call: from a chat thread it becomes a proposal that a person confirms in the chat " +
          "(when the Baton config allows that at all); otherwise workspaces.roots in the Baton config is the way.",
        inputSchema: registerWorkspaceShape,
      },
      (args) => call("register_workspace", args),
    );
}

/** Runs a tool against the backend, turning a BatonError into a tool error the agent can show. */
export function localToolCall(tools: HandoverTools, subagents?: SubagentTools): ToolCall {
  return async (name, args, caller = { machine: "local" }, signal) => {
    // The server offers each token only its tools; a call to another is refused here all the same.
    if (!mayCall(tokenKindOf(caller), name)) return toolError(`${name} is not available to this agent (see Baton's docs/mcp-access.md).`);
    try {
      const reply = await run(name, args, caller, signal);
      return { content: [{ type: "text", text: reply.text }], structuredContent: reply.data };
    } catch (error) {
      return toolError(userMessageOf(error));
    }
  };

  function run(name: ToolName, args: Record<string, unknown>, caller: McpCaller, signal?: AbortSignal): Promise<ToolReply> {
    switch (name) {
      case "get_session_id":
        return tools.getSessionId(args as GetSessionIdArgs, caller.machine);
      case "prepare_handover":
        return tools.prepareHandover(args as PrepareHandoverArgs, caller.machine);
      case "register_workspace":
        return tools.registerWorkspace(args as RegisterWorkspaceArgs, caller);
    }
    if (!subagents) throw new Error(`${name} called on a server without the subagent tools`);
    if (name === "initialize_subagents") return subagents.initialize(args as unknown as InitializeSubagentsArgs, caller);
    if (name === "wait_for_subagents") return subagents.wait(args as WaitForSubagentsArgs, caller, signal);
    return subagents.cancel(args as CancelSubagentsArgs, caller);
  }
}

export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function registerSubagentTools(server: McpServer, call: ToolCall): void {
  server.registerTool(
    "initialize_subagents",
    {
      title: "Start named subagents",
      description:
        "Starts subagents: each is a full agent process with its own session, working on its task in this workspace (or its own git worktree). " +
        "They run while you continue; call wait_for_subagents to collect their reports (final message, files changed, session id). " +
        "Their progress and permission requests show in the chat.",
      inputSchema: initializeSubagentsShape,
    },
    (args, extra) => call("initialize_subagents", args, undefined, extra.signal),
  );
  server.registerTool(
    "wait_for_subagents",
    {
      title: "Wait for subagents and collect their reports",
      description:
        "Waits until the named subagents (default: all) have finished, or timeout_s passed, then returns each finished one's report " +
        "(final message, files changed, branch with worktree isolation, session id) and the state of the others. Call again for those still running.",
      inputSchema: waitForSubagentsShape,
    },
    (args, extra) => call("wait_for_subagents", args, undefined, extra.signal),
  );
  server.registerTool(
    "cancel_subagents",
    {
      title: "Cancel subagents",
      description: "Cancels the named subagents (default: all still queued or running). Their reports so far stay available to wait_for_subagents.",
      inputSchema: cancelSubagentsShape,
    },
    (args, extra) => call("cancel_subagents", args, undefined, extra.signal),
  );
}
