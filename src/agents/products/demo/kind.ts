import { DEMO_AGENT_ENTRY } from "../../../kernel/install.js";
import type { AgentKind } from "../kind.js";

export const demo: AgentKind = {
  id: "demo",
  displayName: "Baton demo agent",
  runtime: "demo",
  acpCommand: () => ({ command: process.execPath, args: [DEMO_AGENT_ENTRY] }),
  installHint: "it ships with Baton: run `npm install` in the Baton folder",
};
