// The agent kinds a config offers: the built-in ones, then each of agents.custom (any ACP agent).
import { agentKinds, type AgentKind } from "../agents/products/index.js";
import type { BatonConfig } from "../config/schema.js";

export function kindsOf(config: BatonConfig["agents"]): AgentKind[] {
  return [...agentKinds(), ...Object.entries(config.custom).map(([id, c]) => customKind(id, c))];
}

function customKind(id: string, c: BatonConfig["agents"]["custom"][string]): AgentKind {
  return {
    id,
    displayName: c.display_name ?? id,
    runtime: c.runtime ?? id,
    acpCommand: () => ({ command: c.command, args: c.args }),
    installHint: c.install_hint ?? `make \`${c.command}\` available on PATH`,
  };
}
