import { fileURLToPath } from "node:url";
import type { AgentKind } from "./kind.js";

/** The compiled CLI entry of this Baton install (dist/bot/cli.js). */
const CLI_ENTRY = fileURLToPath(new URL("../../bot/cli.js", import.meta.url));

export const demo: AgentKind = {
  id: "demo",
  displayName: "Baton demo agent",
  runtime: "demo",
  acpCommand: () => ({ command: process.execPath, args: [CLI_ENTRY, "demo-agent"] }),
  installHint: "it ships with Baton: run `npm install` in the Baton folder",
};
