// `baton launch demo`: Baton itself is the terminal (repl.ts), so the whole terminal → chat
// handover runs with no agent CLI installed.
import { CommandError } from "../../../kernel/errors.js";
import { batonMcpServer, type InBatonLaunch, type LaunchContext } from "../kit/launch.js";

export function demoLaunch(userArgs: string[], ctx: LaunchContext): InBatonLaunch {
  const resumeAt = userArgs.indexOf("--resume");
  const rest = userArgs.filter((_, i) => resumeAt < 0 || (i !== resumeAt && i !== resumeAt + 1));
  if (rest.length > 0) throw new CommandError(`\`baton launch demo\` takes only \`--resume <session id>\`, not: ${rest.join(" ")}`);
  const resume = resumeAt >= 0 ? userArgs[resumeAt + 1] : undefined;
  return async (io) => {
    const { runDemoRepl } = await import("./repl.js");
    await runDemoRepl({ ...io, mcp: batonMcpServer("demo", ctx), resume });
  };
}
