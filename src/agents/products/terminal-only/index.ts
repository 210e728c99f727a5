// Products Baton knows only as terminal CLIs: no session store it reads, no chat over ACP. A
// session from elsewhere continues in them from a brief (`baton handoff resume --agent <id>`). One
// that grows a reader or a chat adapter moves to a folder of its own.
import type { AgentProduct } from "../product.js";

export const omp: AgentProduct = { id: "omp", label: "Oh My Pi", executable: "omp", terminal: { newArgs: (p) => ["--approval-mode=always-ask", p] } };

export const kiro: AgentProduct = { id: "kiro", label: "Kiro", aliases: ["kiro-cli"], executable: "kiro-cli", terminal: { newArgs: (p) => ["chat", p] } };

export const agy: AgentProduct = { id: "agy", label: "Antigravity CLI", executable: "agy", terminal: { newArgs: (p) => ["--prompt-interactive", p] } };

export const devin: AgentProduct = {
  id: "devin",
  label: "Devin CLI",
  executable: "devin",
  // Naming the mode keeps DEVIN_PERMISSION_MODE=dangerous from carrying over.
  terminal: { newArgs: (p) => ["--permission-mode", "auto", "--", p] },
};

export const muse: AgentProduct = { id: "muse", label: "Muse Code", executable: "muse", terminal: { newArgs: (p) => ["--approval-mode", "on-request", p] } };

export const openhands: AgentProduct = { id: "openhands", label: "OpenHands", executable: "openhands", terminal: { newArgs: (p) => ["--task", p] } };

export const kimi: AgentProduct = {
  id: "kimi",
  label: "Kimi Code",
  executable: "kimi",
  terminal: { notStartable: "Kimi Code can only take a prompt non-interactively, so Baton does not start it" },
};

export const omo: AgentProduct = {
  id: "omo",
  label: "Senpi",
  executable: "omo",
  terminal: { notStartable: "Senpi moves Pi's agent directory into its own the first time it runs, so Baton does not start it" },
};
