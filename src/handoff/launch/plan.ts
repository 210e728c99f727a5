// What `baton launch <agent>` runs: the agent's own CLI, in this terminal, with Baton's MCP server
// handed to it for this run only (a flag or a per-run settings file in the data dir — never a file
// in the project) and the BATON_* environment the MCP tools read. Each product's plan is in its
// folder (src/agents/products/<id>/); never an approval-bypass flag.
import { CommandError } from "../../kernel/errors.js";
import { getProduct, launchableProducts } from "../../agents/products/index.js";
import { refuseFlags, type InBatonLaunch, type LaunchContext, type LaunchPlan } from "../../agents/products/kit/launch.js";

export type { LaunchContext, LaunchPlan } from "../../agents/products/kit/launch.js";

/** Throws when the user's arguments would turn the agent's approvals off. */
export function refuseApprovalBypass(agent: string, args: string[]): void {
  refuseFlags(getProduct(agent)?.approvalBypass ?? [], args);
}

function unknownAgent(agent: string): CommandError {
  return new CommandError(
    `\`baton launch\` knows ${launchableProducts()
      .map((p) => p.id)
      .join(", ")}; not "${agent}".`,
  );
}

/** The plan to spawn the agent's CLI, or Baton's own terminal for it (`inBaton`). */
export function planLaunch(agent: string, userArgs: string[], ctx: LaunchContext): LaunchPlan {
  refuseApprovalBypass(agent, userArgs);
  const product = getProduct(agent);
  if (!product?.launch) throw unknownAgent(agent);
  const plan = product.launch(userArgs, ctx);
  // The product's one approval-safety list, as in chat and in every terminal command.
  const ask = product.askEnv ?? {};
  const unsetEnv = (product.unsafeEnv ?? []).filter((name) => !(name in ask));
  return { ...plan, env: { ...ask, ...plan.env }, ...(unsetEnv.length ? { unsetEnv } : {}) };
}

/** A launch Baton runs in its own process (the demo agent), when the product has one. */
export function planInBatonLaunch(agent: string, userArgs: string[], ctx: LaunchContext): InBatonLaunch | undefined {
  return getProduct(agent)?.launchInBaton?.(userArgs, ctx);
}
