// `baton handoff __trampoline <spec>`: runs in the new terminal of a detached launch. Claims the
// spec, starts the exact argument vector it names, confirms startup, and exits with the runtime's code.

import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { claimSpec, confirmPathOf, failurePathOf } from "./spec.js";

export async function runTrampoline(specPath: string): Promise<number> {
  const spec = await claimSpec(specPath);
  if (!spec) {
    process.stderr.write("This handoff launch was cancelled or already started elsewhere; nothing to do.\n");
    return 1;
  }
  if (Date.now() > spec.expiresAt) {
    process.stderr.write("This handoff launch expired before the terminal opened; nothing was started.\n");
    return 1;
  }
  const env: NodeJS.ProcessEnv = { ...process.env, ...spec.set };
  for (const name of spec.unset) delete env[name];
  return new Promise<number>((resolve) => {
    const child = spawn(spec.executable, spec.args, { cwd: spec.dir, env, stdio: "inherit" });
    child.once("spawn", () => {
      void fs.writeFile(confirmPathOf(specPath), String(child.pid ?? 0), { mode: 0o600 });
    });
    child.once("error", (err) => {
      const message = `could not start ${spec.executable}: ${err.message}`;
      process.stderr.write(`${message}\n`);
      void fs.writeFile(failurePathOf(specPath), message, { mode: 0o600 }).finally(() => resolve(127));
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
