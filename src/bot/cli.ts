// The `baton` command line. Each action imports what it needs when it runs, so `baton demo-agent`
// and `baton handoff list` don't load the daemon, and `baton start` loads only enabled platforms.
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { registerHandoffCommand } from "../handover/handoff/cli.js";
import { registerHandoverCommands } from "../handover/cli.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

export function buildProgram(): Command {
  const program = new Command("baton")
    .description("Coding agents on this machine, in your team chat.")
    .version(pkg.version, "-v, --version")
    .option("-c, --config <file>", "config file (else $BATON_CONFIG, ./baton.yaml, ~/.config/baton/config.yaml)")
    .option("-d, --data-dir <dir>", "data directory (else $BATON_DATA_DIR, else ~/.baton)")
    .showHelpAfterError("(run baton --help for usage)");

  program
    .command("start", { isDefault: false })
    .description("run the daemon (with no config: the web chat on 127.0.0.1 and the first agent found)")
    .action(async () => {
      const { runStart } = await import("./cli-start.js");
      await runStart(program.opts());
    });

  program
    .command("doctor")
    .description("check the config, the data dir, the agents and the platform credentials")
    .option("--json", "machine-readable output")
    .action(async (opts: { json?: boolean }) => {
      const { runDoctor } = await import("./doctor.js");
      process.exitCode = await runDoctor({ ...program.opts(), json: opts.json });
    });

  const config = program.command("config").description("validate the config or print its JSON Schema");
  config
    .command("validate [file]")
    .description("exit 0 when the config is valid, 1 with the key path and line when not")
    .action(async (file: string | undefined) => {
      const { runValidate } = await import("./cli-config.js");
      process.exitCode = runValidate(file ?? program.opts().config);
    });
  config
    .command("schema")
    .description("print the config's JSON Schema (for editors)")
    .action(async () => {
      const { configJsonSchema } = await import("../config/schema.js");
      process.stdout.write(JSON.stringify(configJsonSchema(), null, 2) + "\n");
    });

  program
    .command("demo-agent")
    .description("run the bundled demo ACP agent on stdio (Baton starts it; you rarely need to)")
    .action(async () => {
      const { runDemoAgent } = await import("../agents/demo/agent.js");
      const connection = runDemoAgent();
      await connection.closed;
      process.exit(0);
    });

  const matrix = program.command("matrix").description("Matrix: log the bot's account in once");
  matrix
    .command("login")
    .description("log in with the configured password; keeps the access token and device id in the data dir (0600)")
    .option("--instance <name>", "which Matrix platform of the config (when there are several)")
    .option("--new-device", "log in as a new device (after losing the crypto store); the old device's encrypted history stays unreadable to Baton")
    .option("--password-stdin", "read the password from standard input instead of the config")
    .action(async (opts: { instance?: string; newDevice?: boolean; passwordStdin?: boolean }) => {
      const { runMatrixLoginCommand } = await import("./cli-matrix.js");
      process.exitCode = await runMatrixLoginCommand(program.opts(), opts);
    });

  registerHandoffCommand(program);
  registerHandoverCommands(program);
  return program;
}

await buildProgram().parseAsync(process.argv);
