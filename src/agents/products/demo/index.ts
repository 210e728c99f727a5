import path from "node:path";
import { DEMO_AGENT_ENTRY } from "../../../kernel/install.js";
import type { AgentProduct } from "../product.js";
import { UUID_ID } from "../kit/ids.js";
import { demoLaunch } from "./launch.js";

function batonDataDir(env: NodeJS.ProcessEnv, home: string): string {
  return env.BATON_DATA_DIR || path.join(home, ".baton");
}

/** The demo agent ships with Baton; `baton launch demo` runs it in a small terminal of Baton's own. */
export const demo: AgentProduct = {
  id: "demo",
  label: "Baton demo agent",
  executable: "baton",
  installHint: "it ships with Baton: run `npm install` in the Baton folder",
  sessionId: UUID_ID,
  chat: { acpCommand: () => ({ command: process.execPath, args: [DEMO_AGENT_ENTRY] }) },
  terminal: { notStartable: "the demo agent runs inside Baton's chat, not in a terminal; continue its sessions in another runtime with --agent" },
  store: {
    location: (env, home) => path.join(batonDataDir(env, home), "demo-agent", "sessions"),
    load: async () => (await import("./store.js")).demoReader,
  },
  launchInBaton: demoLaunch,
};
