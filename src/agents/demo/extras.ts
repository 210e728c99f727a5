// What the demo agent does for the chat features: modes it advertises and switches (ACP session
// modes), models (a session config option, or the older `models` + `session/set_model` with
// BATON_DEMO_LEGACY_MODELS=1; neither with BATON_DEMO_NO_SETTINGS=1), usage after each turn (`usage_update` and the prompt answer's
// `usage`), answers that carry an image (`demo:image`) or a file link (`demo:file <path>`), and
// `demo:write <path> <text>`, which writes a file where the agent works, as an edit tool would.
// Settings live in the process only, so a new process starts with the defaults: whatever survives
// an idle shutdown is what Baton applies again.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk";

const DEMO_MODES = [
  { id: "ask", name: "Ask", description: "answers questions, changes nothing" },
  { id: "code", name: "Code", description: "reads and writes code" },
  { id: "plan", name: "Plan", description: "plans before it acts" },
];
const DEMO_MODELS = [
  { value: "demo-small", name: "Demo Small" },
  { value: "demo-large", name: "Demo Large" },
];
const DEFAULT_MODE = "code";
const DEFAULT_MODEL = "demo-small";
const CONTEXT_SIZE = 200_000;
/** Dollars a turn costs, so the cost the chat shows can be checked. */
const DEMO_COST_PER_TURN = 0.0012;
/** A 2×2 PNG: red, green, blue, black. */
export const DEMO_PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGP4z8DwnwGMgRQAH+4D/dJQfRoAAAAASUVORK5CYII=";

interface SessionState {
  mode: string;
  model: string;
  turns: number;
  contextUsed: number;
}

export class DemoExtras {
  private readonly sessions = new Map<string, SessionState>();

  constructor(private readonly advertises: "settings" | "legacy-models" | "nothing") {}

  state(sessionId: string): SessionState {
    let state = this.sessions.get(sessionId);
    if (!state) this.sessions.set(sessionId, (state = { mode: DEFAULT_MODE, model: DEFAULT_MODEL, turns: 0, contextUsed: 0 }));
    return state;
  }

  /** What session/new, load and resume answer about modes and models. */
  advertise(sessionId: string): Record<string, unknown> {
    const { mode, model } = this.state(sessionId);
    if (this.advertises === "nothing") return {};
    const modes = { currentModeId: mode, availableModes: DEMO_MODES };
    if (this.advertises === "legacy-models") return { modes, models: { currentModelId: model, availableModels: DEMO_MODELS.map((m) => ({ modelId: m.value, name: m.name })) } };
    return { modes, configOptions: this.configOptions(sessionId) };
  }

  configOptions(sessionId: string): acp.SessionConfigOption[] {
    return [{ id: "model", name: "Model", category: "model", type: "select", currentValue: this.state(sessionId).model, options: DEMO_MODELS }];
  }

  setMode(sessionId: string, modeId: string): void {
    if (!DEMO_MODES.some((m) => m.id === modeId)) throw acp.RequestError.invalidParams(undefined, `unknown mode ${modeId}`);
    this.state(sessionId).mode = modeId;
  }

  setModel(sessionId: string, modelId: string): void {
    if (!DEMO_MODELS.some((m) => m.value === modelId)) throw acp.RequestError.invalidParams(undefined, `unknown model ${modelId}`);
    this.state(sessionId).model = modelId;
  }

  /** After a turn: the context and cost so far as a usage_update, and the turn's tokens for the answer (a character counts as a token). */
  async turnEnded(client: acp.AgentContext, sessionId: string, prompt: string, reply: string): Promise<{ inputTokens: number; outputTokens: number; totalTokens: number }> {
    const state = this.state(sessionId);
    state.turns++;
    state.contextUsed += prompt.length + reply.length;
    const cost = { amount: Number((state.turns * DEMO_COST_PER_TURN).toFixed(6)), currency: "USD" };
    await client.notify(acp.methods.client.session.update, { sessionId, update: { sessionUpdate: "usage_update", used: state.contextUsed, size: CONTEXT_SIZE, cost } });
    return { inputTokens: prompt.length, outputTokens: reply.length, totalTokens: prompt.length + reply.length };
  }
}

/** The requests that switch a session's mode and model: set_mode, the model config option, and the older session/set_model. */
export function answerSettingRequests(app: acp.AgentApp, extras: DemoExtras): acp.AgentApp {
  return app
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => {
      extras.setMode(params.sessionId, params.modeId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => {
      if (params.configId !== "model" || typeof params.value !== "string") throw acp.RequestError.invalidParams(undefined, `unknown option ${params.configId}`);
      extras.setModel(params.sessionId, params.value);
      return { configOptions: extras.configOptions(params.sessionId) };
    })
    .onRequest(
      "session/set_model",
      (raw) => raw as { sessionId: string; modelId: string },
      ({ params }) => {
        extras.setModel(params.sessionId, params.modelId);
        return {};
      },
    );
}

/**
 * `demo:image`, `demo:file <path>`, `demo:whoami` and `demo:mode <id>` (the agent switches its own
 * mode, as a real one does when a plan is done): the update to send and the words to say, or
 * undefined for other prompts.
 */
export function mediaAnswer(text: string, cwd: string, state: SessionState): { update?: acp.SessionUpdate; say: string } | undefined {
  if (text === "demo:whoami") return { say: `mode=${state.mode} model=${state.model}` };
  const mode = /^demo:mode\s+(\S+)$/.exec(text)?.[1];
  if (mode && DEMO_MODES.some((m) => m.id === mode)) {
    state.mode = mode;
    return { update: { sessionUpdate: "current_mode_update", currentModeId: mode }, say: `Switched myself to ${mode}.` };
  }
  if (text === "demo:image") {
    return { update: { sessionUpdate: "agent_message_chunk", content: { type: "image", mimeType: "image/png", data: DEMO_PNG_BASE64, uri: "demo-squares.png" } }, say: "Here is an image." };
  }
  const write = /^demo:write\s+(\S+)\s+([\s\S]+)$/.exec(text);
  if (write) return { say: writeFile(cwd, write[1], write[2]) };
  const file = /^demo:file\s+(.+)$/.exec(text)?.[1]?.trim();
  if (!file) return undefined;
  const path = resolve(cwd, file);
  const name = path.split("/").at(-1) || "file";
  return { update: { sessionUpdate: "agent_message_chunk", content: { type: "resource_link", uri: pathToFileURL(path).href, name } }, say: `Sent ${file}.` };
}

/** `demo:write <path> <text>`: the text and a newline into a file under the agent's directory (never outside it). */
function writeFile(cwd: string, file: string, text: string): string {
  const path = resolve(cwd, file);
  const inside = relative(cwd, path);
  if (inside.startsWith("..") || inside === "") return `Refused: ${file} is outside ${cwd}.`;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${text}\n`);
  return `Wrote ${file} in ${cwd}.`;
}
