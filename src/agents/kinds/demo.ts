import { fileURLToPath } from "node:url";
import type { AgentKind } from "./kind.js";

/**
 * The compiled CLI entry of this Baton install. From dist/ it is dist/bot/cli.js; when this module
 * runs from source (the test runner), the build of the same tree (`npm test` builds first).
 */
export const CLI_ENTRY = fileURLToPath(
  import.meta.url.endsWith(".ts") ? new URL("../../../dist/bot/cli.js", import.meta.url) : new URL("../../bot/cli.js", import.meta.url),
);

export const demo: AgentKind = {
  id: "demo",
  displayName: "Baton demo agent",
  runtime: "demo",
  acpCommand: () => ({ command: process.execPath, args: [CLI_ENTRY, "demo-agent"] }),
  installHint: "it ships with Baton: run `npm install` in the Baton folder",
};
