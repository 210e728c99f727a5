import type { AgentKind } from "../kind.js";

export const goose: AgentKind = {
  id: "goose",
  displayName: "goose",
  runtime: "goose",
  acpCommand: () => ({ command: "goose", args: ["acp"] }),
  cliCommand: "goose",
  installHint: "install goose (https://block.github.io/goose/), then run `goose configure`",
  // goose approves every tool call unless told otherwise.
  unsafeEnv: ["GOOSE_MODE"],
  askEnv: { GOOSE_MODE: "approve" },
};
