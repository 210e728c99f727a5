// `baton mcp`: the MCP server on stdio that agent CLIs start; it forwards to the running daemon.
// The action loads its module on first use, so `baton start` pays nothing for it.
import type { Command } from "commander";
import { batonVersion } from "../kernel/install.js";
import { dataDirOf } from "../handoff/cli.js";

export function registerMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description("MCP server on stdio for agent CLIs (handover tools); forwards to the running daemon")
    .action(async () => {
      const { runMcpStdio } = await import("./stdio.js");
      await runMcpStdio({ dataDir: await dataDirOf(program), env: process.env, cwd: process.cwd(), version: batonVersion() });
    });
}
