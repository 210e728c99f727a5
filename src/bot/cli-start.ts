// `baton start`: load the config (or the embedded default), start the daemon, print one line per
// platform, and shut down cleanly on SIGINT / SIGTERM.
import { ConfigError } from "../kernel/errors.js";
import { loadConfigOrDefault, resolveDataDir, type LoadedConfig } from "../config/load.js";
import { createLogger } from "../kernel/log.js";

export interface GlobalOptions {
  config?: string;
  dataDir?: string;
}


export async function runStart(options: GlobalOptions): Promise<void> {
  let loaded: LoadedConfig;
  try {
    loaded = loadConfigOrDefault(options.config);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`baton: ${error.userMessage}`);
      process.exit(1);
    }
    throw error;
  }
  const dataDir = resolveDataDir(options.dataDir, loaded);
  const log = createLogger({ level: loaded.config.log.level, format: loaded.config.log.format });
  const { startDaemon } = await import("./daemon.js");
  const startedAt = Date.now();
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    daemon = await startDaemon({
      loaded,
      dataDir,
      log,
      onPlatformStarted: (info) => process.stdout.write(`${info.description}\n`),
    });
  } catch (error) {
    const message = error instanceof Error && "userMessage" in error ? String((error as { userMessage: string }).userMessage) : String(error);
    console.error(`baton: could not start: ${message}`);
    process.exit(1);
  }
  const host = daemon.core.agents.defaultHost();
  process.stdout.write(
    `Baton ready in ${Date.now() - startedAt} ms — ${loaded.path ? `config ${loaded.path}` : "no config file, using the embedded default"}; ` +
      `default agent: ${daemon.core.agents.displayName(host.agent)}; data in ${dataDir}\n`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      process.stderr.write("baton: second signal, exiting now\n");
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, "shutting down");
    await daemon.stop();
    // Some SDKs keep timers alive after stopping; the daemon is done, so exit explicitly.
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}
