// `baton handoff list | export | resume`: the command definitions only. The actions (and the store
// readers, sql.js included) load on first use, so `baton start` pays nothing for them.

import { type Command, Option } from "commander";
import { PRODUCTS } from "../../agents/products/index.js";

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Flags shared by every subcommand that reads stores. */
function storeFlags(cmd: Command): Command {
  const readable = PRODUCTS.filter((p) => p.store);
  cmd
    .option("--harness <runtime>", `only this runtime (${readable.map((p) => p.id).join(", ")})`)
    .option("--store-dir <runtime=path>", "read a runtime's store from a non-default location (repeatable)", collect);
  for (const flag of readable.flatMap((p) => p.store?.dirFlag ?? [])) cmd.option(`--${flag.name} <path>`, flag.description);
  return cmd.addOption(new Option("--data-dir <path>", "Baton data directory").hideHelp());
}

export function registerHandoffCommand(program: Command): void {
  const handoff = program.command("handoff").description("pick up a local agent session again, in the same runtime or another one");

  storeFlags(
    handoff
      .command("list")
      .description("list resumable sessions, newest first")
      .option("--here", "only sessions that ran in this directory or below it")
      .option("--dir <dir>", "only sessions that ran in this directory or below it")
      .option("--subagents", "include subagent sessions")
      .option("--limit <n>", "maximum sessions to list; 0 lists all", "25")
      .option("--json", "print {sessions, warnings}"),
  ).action(async (opts, cmd: Command) => {
    const { runList } = await import("./list.js");
    await runList(opts, cmd);
  });

  storeFlags(
    handoff
      .command("export")
      .description("write a handoff brief for one session")
      .argument("<session-id>", "session id or a unique prefix of at least 6 characters")
      .option("--print", "write the brief to stdout instead of a file")
      .option("--output-dir <dir>", "directory to write the brief into")
      .option("--json", "print {path, from, session, brief}"),
  ).action(async (id: string, opts, cmd: Command) => {
    const { runExport } = await import("./commands.js");
    await runExport(id, opts, cmd);
  });

  storeFlags(
    handoff
      .command("resume")
      .description("reopen a session, or continue it in another runtime from a brief")
      .argument("<session-id>", "session id or a unique prefix of at least 6 characters")
      .option("--agent <runtime>", "runtime to continue in (default: the session's own)")
      .option("--new", "start a new session from a brief even when the session could be reopened")
      .option("--cwd <dir>", "directory to start the runtime in")
      .addOption(new Option("--launch <mode>", "where the runtime runs").choices(["current", "auto", "new-terminal", "tmux"]).default("current"))
      .option("--print", "show the plan and command; write and launch nothing")
      .option("--json", "with --print, describe the plan as JSON")
      .option("--yes", "launch without asking")
      .option("--output-dir <dir>", "directory to write the brief into"),
  ).action(async (id: string, opts, cmd: Command) => {
    const { runResume } = await import("./commands.js");
    await runResume(id, opts, cmd);
  });

  // Runs inside the new terminal of a detached launch: claims the spec file and starts the runtime.
  handoff
    .command("__trampoline", { hidden: true })
    .argument("<spec>", "launch specification file")
    .action(async (spec: string) => {
      const { runTrampoline } = await import("./trampoline.js");
      process.exitCode = await runTrampoline(spec);
    });
}
