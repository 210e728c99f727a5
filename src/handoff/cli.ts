// `baton launch` and `baton setup`: the terminal side of the handover (`baton mcp` is in
// src/mcp/cli.ts). The actions load their modules on first use, so `baton start` pays nothing for them.
import { homedir } from "node:os";
import type { Command } from "commander";
import { BatonError } from "../kernel/errors.js";
import { batonVersion } from "../kernel/install.js";
import { getProduct, launchableProducts, setupProducts } from "../agents/products/index.js";
import { which } from "../kernel/process.js";

interface GlobalOpts {
  config?: string;
  dataDir?: string;
}

export async function dataDirOf(program: Command): Promise<string> {
  const { dataDirForCli } = await import("../config/load.js");
  return dataDirForCli(program.opts<GlobalOpts>());
}

/** "a, b or c" */
function oneOf(ids: string[]): string {
  return ids.length > 1 ? `${ids.slice(0, -1).join(", ")} or ${ids[ids.length - 1]}` : (ids[0] ?? "");
}

/** Prints a BatonError's user message and exits 1; anything else propagates. */
async function guarded(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    if (!(error instanceof BatonError)) throw error;
    process.stderr.write(`baton: ${error.userMessage}\n`);
    process.exitCode = 1;
  }
}

export function registerHandoverCommands(program: Command): void {
  const launchable = launchableProducts().map((p) => p.id);
  const settable = setupProducts().map((p) => p.id);
  program
    .command("launch")
    .description(`run an agent CLI here with Baton's MCP server for this run (${launchable.join(", ")})`)
    .argument("<agent>", oneOf(launchable))
    .argument("[args...]", "arguments for the agent CLI, after --")
    .allowUnknownOption()
    .action((agent: string, args: string[]) =>
      guarded(async () => {
        const { runLaunch } = await import("./launch/run.js");
        process.exitCode = await runLaunch({ agent, args, dataDir: await dataDirOf(program), version: batonVersion() });
      }),
    );

  program
    .command("setup")
    .description("register `baton mcp` with an agent (user scope) and install its `handover` command")
    .argument("<agent>", oneOf(settable))
    .option("--print", "show what would change, change nothing")
    .option("--json", "with --print: the plan as JSON")
    .option("--force", "set it up even though the agent's CLI is not installed here")
    .action((agent: string, opts: { print?: boolean; json?: boolean; force?: boolean }) =>
      guarded(async () => {
        const { describePlan, mcpCommand, planAsJson, planSetup } = await import("./setup/plan.js");
        const explicitDataDir = program.opts<GlobalOpts>().dataDir ?? process.env.BATON_DATA_DIR;
        const ctx = { home: homedir(), env: process.env, dataDir: explicitDataDir ? await dataDirOf(program) : undefined };
        const steps = await planSetup(agent, ctx);
        const { warning } = mcpCommand(ctx);
        if (opts.json && !opts.print) throw new BatonError(`--json goes with --print: \`baton setup ${agent} --print --json\`.`);
        if (opts.print) {
          process.stdout.write(`${opts.json ? planAsJson(agent, steps, warning) : describePlan(agent, steps, warning)}\n`);
          return;
        }
        // Settings for an agent that is not installed would do nothing; most likely the wrong machine or user.
        const product = getProduct(agent);
        if (product && !opts.force && !which(product.executable, process.env)) {
          const install = product.installHint ? ` Install it first (${product.installHint}),` : " Install it first,";
          throw new BatonError(`${product.label} is not installed here (no \`${product.executable}\` on PATH).${install} or add --force to write its settings anyway.`);
        }
        for (const step of steps) {
          step.apply();
          process.stdout.write(`✓ ${step.summary}\n`);
        }
        if (warning) process.stderr.write(`baton: ${warning}\n`);
        process.stdout.write(`Done. In ${agent}, ask it to "hand this over" (or type ${product?.handoverCommand ?? "/handover"}) and type the /pickup line in chat.\n`);
      }),
    );
}
