// Runs `baton launch <agent>`: records the launch (so the daemon knows this terminal is open),
// runs the agent CLI with the terminal attached, and forgets the launch when it ends.
import { spawn } from "node:child_process";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { dirname } from "node:path";
import { CommandError } from "../../kernel/errors.js";
import { getProduct } from "../../agents/products/index.js";
import { LaunchRegistry, newLaunchId } from "./registry.js";
import { findDaemon } from "../discovery.js";
import { planInBatonLaunch, planLaunch, refuseApprovalBypass, type LaunchContext } from "./plan.js";

export interface RunLaunchOptions {
  agent: string;
  args: string[];
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  version: string;
}

/** Returns the agent's exit code. */
export async function runLaunch(options: RunLaunchOptions): Promise<number> {
  const env = options.env ?? process.env;
  const cwd = realpathSync(options.cwd ?? process.cwd());
  const ctx: LaunchContext = { dataDir: options.dataDir, launchId: newLaunchId(), env };
  refuseApprovalBypass(options.agent, options.args);
  const registry = new LaunchRegistry(options.dataDir);
  if (!findDaemon(options.dataDir)) {
    process.stderr.write(`baton: no daemon runs for ${options.dataDir}; the handover tools answer "not running" until you run \`baton start\`.\n`);
  }
  const record = (pid: number) => registry.record({ launchId: ctx.launchId, pid, agent: options.agent, cwd, startedAt: new Date().toISOString() });

  const inBaton = planInBatonLaunch(options.agent, options.args, ctx);
  if (inBaton) {
    record(process.pid);
    try {
      await inBaton({ cwd, env, input: process.stdin, output: process.stdout, version: options.version });
      return 0;
    } finally {
      registry.remove(ctx.launchId);
    }
  }

  const plan = planLaunch(options.agent, options.args, ctx);
  for (const file of plan.files) {
    mkdirSync(dirname(file.path), { recursive: true, mode: 0o700 });
    writeFileSync(file.path, file.content, { mode: 0o600 });
  }
  const forget = () => {
    registry.remove(ctx.launchId);
    for (const file of plan.files) rmSync(file.path, { force: true });
  };
  const childEnv: NodeJS.ProcessEnv = { ...env, ...plan.env };
  for (const name of plan.unsetEnv ?? []) delete childEnv[name];
  const child = spawn(plan.command, plan.args, { cwd, env: childEnv, stdio: "inherit" });
  // Ctrl-C reaches the agent through the terminal; this process stays to clean up after it.
  const ignore = () => undefined;
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", ignore);
  process.on("SIGTERM", onTerm);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once("spawn", () => record(child.pid!));
      child.once("error", (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") return reject(error);
        const product = getProduct(options.agent);
        reject(new CommandError(`\`${plan.command}\` was not found on PATH.${product?.installHint ? ` Install ${product.label}: ${product.installHint}` : ""}`));
      });
      child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    });
  } finally {
    process.off("SIGINT", ignore);
    process.off("SIGTERM", onTerm);
    forget();
  }
}
