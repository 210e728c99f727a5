// `baton matrix login`: finds the Matrix platforms in the config and the data dir, then logs in.
import { text } from "node:stream/consumers";
import { userMessageOf } from "../kernel/errors.js";
import { loadConfigOrDefault, resolveDataDir } from "../config/load.js";
import { runMatrixLogin } from "../platforms/matrix/login-cli.js";

export async function runMatrixLoginCommand(global: { config?: string; dataDir?: string }, opts: { instance?: string; newDevice?: boolean; passwordStdin?: boolean }): Promise<number> {
  try {
    const loaded = loadConfigOrDefault(global.config);
    const password = opts.passwordStdin ? (await text(process.stdin)).replace(/\r?\n$/, "") : undefined;
    await runMatrixLogin({
      instances: loaded.platforms.filter((p) => p.kind === "matrix"),
      dataDir: resolveDataDir(global.dataDir, loaded),
      instance: opts.instance,
      newDevice: opts.newDevice,
      password,
      out: (line) => process.stdout.write(`${line}\n`),
    });
    return 0;
  } catch (error) {
    process.stderr.write(`${userMessageOf(error)}\n`);
    return 1;
  }
}
