// `baton setup <agent>`: registers `baton mcp` with the agent at user scope and installs a
// `handover` command that tells the agent to call prepare_handover and show the line. `--print`
// shows every change without making it. No project file is touched; each product's steps are in
// its folder (src/agents/products/<id>/setup.ts), the steps they share in products/kit/setup.ts.
import { CommandError } from "../../kernel/errors.js";
import { getProduct, setupProducts } from "../../agents/products/index.js";
import type { SetupContext, SetupStep } from "../../agents/products/kit/setup.js";

export { batonLauncher, mcpCommand, type SetupContext, type SetupStep } from "../../agents/products/kit/setup.js";

export async function planSetup(agent: string, ctx: SetupContext): Promise<SetupStep[]> {
  const product = getProduct(agent);
  if (product?.setup) return product.setup(ctx);
  if (product?.launchInBaton) throw new CommandError(`The ${product.id} agent needs no setup: \`baton launch ${product.id}\` passes Baton's MCP server to it for each run.`);
  throw new CommandError(
    `\`baton setup\` knows ${setupProducts()
      .map((p) => p.id)
      .join(", ")}; not "${agent}". For others, register \`baton mcp\` as a stdio MCP server in the agent's settings.`,
  );
}

export function describePlan(agent: string, steps: SetupStep[], warning?: string): string {
  const out = [`baton setup ${agent} would:`];
  steps.forEach((step, i) => {
    out.push(`${i + 1}. ${step.summary}`);
    out.push(...step.detail.split("\n").map((l) => `     ${l}`));
  });
  if (warning) out.push(`! ${warning}`);
  return out.join("\n");
}

/** `setup --print --json`: the same plan for scripts. */
export function planAsJson(agent: string, steps: SetupStep[], warning?: string): string {
  return JSON.stringify({ agent, steps: steps.map((s) => ({ summary: s.summary, detail: s.detail })), warnings: warning ? [warning] : [] }, null, 2);
}
