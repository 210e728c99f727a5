import { fileURLToPath } from "node:url";
import type { AgentKind } from "./kind.js";

/**
 * The demo agent's process entry in this Baton install (dist/agents/demo/main.js). When this
 * module runs from source (the test runner), the build of the same tree (`npm test` builds first).
 */
const DEMO_ENTRY = fileURLToPath(
  import.meta.url.endsWith(".ts") ? new URL("../../../dist/agents/demo/main.js", import.meta.url) : new URL("../demo/main.js", import.meta.url),
);

/** The CLI of this install (dist/bot/cli.js), for the `baton mcp` stdio forwarder agents are given. */
export const CLI_ENTRY = fileURLToPath(
  import.meta.url.endsWith(".ts") ? new URL("../../../dist/bot/cli.js", import.meta.url) : new URL("../../bot/cli.js", import.meta.url),
);

export const demo: AgentKind = {
  id: "demo",
  displayName: "Baton demo agent",
  runtime: "demo",
  acpCommand: () => ({ command: process.execPath, args: [DEMO_ENTRY] }),
  installHint: "it ships with Baton: run `npm install` in the Baton folder",
};
