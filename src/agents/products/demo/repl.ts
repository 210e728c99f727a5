// `baton launch demo`: a small interactive terminal over the bundled demo agent, standing in for
// an agent CLI so the whole terminal → chat handover runs with no real agent installed. Like a real
// agent it reaches Baton only through `baton mcp` (started with the same per-run spec), calling
// prepare_handover when the user types /handover.
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AgentHost } from "../../host.js";
import { userMessageOf } from "../../../kernel/errors.js";
import type { McpServerSpec } from "../kit/launch.js";
import { kindOf } from "../kinds.js";
import { demo as product } from "./index.js";

export interface DemoReplOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  mcp: McpServerSpec;
  /** `--resume <id>`: continue that demo session instead of starting one. */
  resume?: string;
  input: Readable;
  output: Writable;
  version: string;
}

export async function runDemoRepl(options: DemoReplOptions): Promise<void> {
  const { output } = options;
  const demo = kindOf(product);
  const launch = demo.acpCommand();
  const host = new AgentHost({
    kind: demo,
    cwd: options.cwd,
    command: launch.command,
    args: launch.args,
    env: { ...options.env, ...options.mcp.env },
    sink: {
      onUpdate: (update, replay) => {
        if (!replay && update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") output.write(update.content.text);
      },
      // The REPL has no approval UI; it never allows on its own, so it rejects.
      requestPermission: async (request) => {
        const reject = request.options.find((o) => o.kind.startsWith("reject"));
        output.write(`\n[permission asked: ${request.toolCall.title ?? "a tool call"} — rejected; use chat for approvals]\n`);
        return reject ? { outcome: { outcome: "selected", optionId: reject.optionId } } : { outcome: { outcome: "cancelled" } };
      },
      onExit: () => undefined,
    },
  });
  await host.start();
  try {
    const opened = await host.openSession(options.resume);
    if (opened.note) output.write(`${opened.note}\n`);
    output.write(`Baton demo agent — session ${opened.sessionId} in ${options.cwd}\nType a message. /handover gives a code to continue in chat; /exit quits.\n> `);
    const lines = createInterface({ input: options.input, terminal: false });
    for await (const line of lines) {
      const text = line.trim();
      if (text === "/exit") break;
      if (text === "/handover") output.write(`${await prepareHandover(options, opened.sessionId)}\n`);
      else if (text) {
        await host.prompt([{ type: "text", text }]);
        output.write("\n");
      }
      output.write("> ");
    }
  } finally {
    await host.stop();
    // /exit leaves the terminal's stdin open; let go of it so the process can end.
    options.input.destroy();
  }
}

async function prepareHandover(options: DemoReplOptions, sessionId: string): Promise<string> {
  const { mcp } = options;
  const client = new Client({ name: "baton-demo-repl", version: options.version });
  const transport = new StdioClientTransport({ command: mcp.command, args: mcp.args, env: { ...getDefaultEnvironment(), ...mcp.env }, cwd: options.cwd, stderr: "inherit" });
  try {
    await client.connect(transport);
    const result = (await client.callTool({ name: "prepare_handover", arguments: { cwd: options.cwd, agent_kind: "demo", session_id: sessionId } })) as CallToolResult;
    return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  } catch (error) {
    return `Could not reach Baton's MCP server: ${userMessageOf(error)}`;
  } finally {
    await client.close().catch(() => undefined);
  }
}
