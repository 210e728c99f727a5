// The `baton` command line. Each action imports what it needs when it runs, so `baton demo-agent`
// and `baton handoff list` don't load the daemon, and `baton start` loads only enabled platforms.
import { Command } from "commander";
import { registerHandoffCommand } from "../handoff/sessions/cli.js";
import { registerHandoverCommands } from "../handoff/cli.js";
import { registerMcpCommand } from "../mcp/cli.js";
import { exitQuietlyOnBrokenPipe } from "../kernel/process.js";
import { batonVersion } from "../kernel/install.js";

async function dataDirOf(program: Command): Promise<string> {
  const { dataDirForCli } = await import("../config/load.js");
  return dataDirForCli(program.opts());
}

/** Runs a subcommand whose refusals are BatonErrors: the message and exit 1. */
async function exitCodeOf(run: () => Promise<number>): Promise<void> {
  const { BatonError } = await import("../kernel/errors.js");
  try {
    process.exitCode = await run();
  } catch (error) {
    if (!(error instanceof BatonError)) throw error;
    process.stderr.write(`baton: ${error.userMessage}\n`);
    process.exitCode = 1;
  }
}

const serviceAction = (run: (m: typeof import("./cli-service.js")) => Promise<number>) => exitCodeOf(async () => run(await import("./cli-service.js")));

export function buildProgram(): Command {
  const program = new Command("baton")
    .description("Coding agents on this machine, in your team chat.")
    .version(batonVersion(), "-v, --version")
    .option("-c, --config <file>", "config file (else $BATON_CONFIG, ./baton.yaml, ~/.config/baton/config.yaml)")
    .option("-d, --data-dir <dir>", "data directory (else $BATON_DATA_DIR, else ~/.baton)")
    .showHelpAfterError("(run baton --help for usage)");

  registerDaemonCommands(program);
  registerServiceCommands(program);
  registerConfigCommands(program);
  registerDataCommands(program);
  registerMatrixCommands(program);
  registerHandoffCommand(program);
  registerMcpCommand(program);
  registerHandoverCommands(program);
  return program;
}

/** The running daemon: start it, ask it, make it step down or reload. */
function registerDaemonCommands(program: Command): void {
  program
    .command("start", { isDefault: false })
    .description("run the daemon (with no config: the web chat on 127.0.0.1 and the first agent found)")
    .option("-p, --port <port>", "the web chat's port (else $BATON_WEB_LISTEN, else platforms.web.listen)")
    .action(async (opts: { port?: string }) => {
      const { runStart } = await import("./cli-start.js");
      await runStart({ ...program.opts(), port: opts.port });
    });

  program
    .command("status")
    .description("ask the running daemon: platforms, turns, hosts, queues, counts (exit 3 when none runs)")
    .option("--json", "machine-readable output")
    .action(async (opts: { json?: boolean }) => {
      const { runStatus } = await import("./cli-ops.js");
      process.exitCode = await runStatus(await dataDirOf(program), !!opts.json);
    });

  program
    .command("step-down")
    .description("with store.url: the leading instance drains and hands the lead to a standby, then stands by")
    .action(async () => {
      const { runStepDown } = await import("./cli-ops.js");
      process.exitCode = await runStepDown(await dataDirOf(program));
    });

  program
    .command("reload")
    .description("make the running daemon re-read its config (as SIGHUP does) and say what needs a restart")
    .action(async () => {
      const { runReload } = await import("./cli-ops.js");
      process.exitCode = await runReload(await dataDirOf(program));
    });
}

/** Baton as a system service. */
function registerServiceCommands(program: Command): void {
  const service = program.command("service").description("run Baton as a service (systemd; a launchd agent on macOS): install, status, logs, uninstall");
  const scoped = (cmd: Command) => cmd.option("--user", "a user service (default unless root)").option("--system", "a system service (default for root)");
  scoped(service.command("install"))
    .description("write the unit (this config, data dir and PATH), then enable and start it")
    .option("--print", "print the unit, change nothing")
    .option("--user-name <name>", "a system service: the account it runs as (else the one that ran sudo)")
    .action((opts: { user?: boolean; system?: boolean; print?: boolean; userName?: string }) => serviceAction(async (m) => m.runServiceInstall({ ...program.opts(), ...opts })));
  scoped(service.command("status"))
    .description("systemctl status of the service")
    .action((opts: { user?: boolean; system?: boolean }) => serviceAction(async (m) => m.runServiceTool("status", opts)));
  scoped(service.command("logs"))
    .description("the service's log (journalctl)")
    .option("-f, --follow", "keep printing new lines")
    .action((opts: { user?: boolean; system?: boolean; follow?: boolean }) => serviceAction(async (m) => m.runServiceTool("logs", opts)));
  scoped(service.command("uninstall"))
    .description("stop, disable and remove the service")
    .action((opts: { user?: boolean; system?: boolean }) => serviceAction(async (m) => m.runServiceUninstall(opts)));
}

/** Checking the setup: doctor, and the config's validation and schema. */
function registerConfigCommands(program: Command): void {
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
    .option("--json", "machine-readable output")
    .action(async (file: string | undefined, opts: { json?: boolean }) => {
      const { runValidate } = await import("./cli-config.js");
      process.exitCode = runValidate(file ?? program.opts().config, !!opts.json);
    });
  config
    .command("schema")
    .description("print the config's JSON Schema (for editors)")
    .action(async () => {
      const { configJsonSchema } = await import("../config/schema.js");
      process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
    });
}

/** The demo agent, the data dir's backups, shell completion. */
function registerDataCommands(program: Command): void {
  program
    .command("audit")
    .description("who did what: refusals, role decisions, approvals, admin commands and turns (the daemon need not run)")
    .option("--since <when>", "only since then: 30m, 12h, 7d, 2w, or a date (2026-12-01)")
    .option("--person <who>", "only this person (access.people) or user id (slack:U0ABC)")
    .option("--thread <id>", "only this thread (th_…)")
    .option("--json", "one JSON object a line, as stored")
    .action((opts: { since?: string; person?: string; thread?: string; json?: boolean }) => exitCodeOf(async () => (await import("./cli-audit.js")).runAudit({ ...program.opts(), ...opts })));

  program
    .command("demo-agent")
    .description("run the bundled demo ACP agent on stdio (Baton starts it; you rarely need to)")
    .action(async () => {
      const { runDemoAgent } = await import("../agents/demo/agent.js");
      const connection = runDemoAgent();
      await connection.closed;
      process.exit(0);
    });

  program
    .command("backup <file>")
    .description("write the data dir to a gzipped tar, consistent while Baton runs (threads, sessions, tokens)")
    .option("--json", "machine-readable output")
    .action((file: string, opts: { json?: boolean }) => exitCodeOf(async () => (await import("./backup.js")).runBackup(await dataDirOf(program), file, !!opts.json)));
  program
    .command("restore <file>")
    .description("unpack a backup into the data dir (empty, or set aside with --force); Baton must not be running on it")
    .option("--force", "set the data dir's current content aside (beside it) instead of refusing")
    .option("--json", "machine-readable output")
    .action((file: string, opts: { force?: boolean; json?: boolean }) => exitCodeOf(async () => (await import("./backup.js")).runRestore(file, await dataDirOf(program), opts)));
  program
    .command("completion <shell>")
    .description("print the shell completion script for bash, zsh or fish (see the README to install it)")
    .action((shell: string) => exitCodeOf(async () => (await import("./completion.js")).runCompletion(program, shell)));
}

/** Matrix: logging the bot's account in. */
function registerMatrixCommands(program: Command): void {
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
}

const program = buildProgram();
// One-shot commands stop quietly when their reader goes away; the daemon is not one of them.
program.hook("preAction", (_root, action) => {
  if (action.name() !== "start") exitQuietlyOnBrokenPipe();
});
await program.parseAsync(process.argv);
