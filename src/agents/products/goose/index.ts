import type { AgentProduct } from "../product.js";

export const goose: AgentProduct = {
  id: "goose",
  label: "goose",
  executable: "goose",
  installHint: "install goose (https://block.github.io/goose/), then run `goose configure`",
  // goose approves every tool call unless told otherwise; GOOSE_MODE=approve makes it ask.
  unsafeEnv: ["GOOSE_MODE"],
  askEnv: { GOOSE_MODE: "approve" },
  chat: { acpCommand: () => ({ command: "goose", args: ["acp"] }), cliCommand: "goose", autoOrder: 6 },
  terminal: { newArgs: (p) => ["run", "--interactive", "--text", p] },
};
