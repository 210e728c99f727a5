// Moving a conversation from one real agent product to another: `/switch host` in chat (the new
// agent's first model request must already hold the old conversation), and `baton handoff resume
// --agent gemini` in a terminal (Gemini's file tool must be able to read the brief it is pointed at).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_TURN_MS, Chat } from "./support/chat.js";
import { CLAUDE, CODEX, GEMINI, type KindProfile, OPENCODE, QWEN } from "./support/kinds.js";
import { Sandbox } from "./support/sandbox.js";
import { baton, Tmux } from "./support/terminal.js";

let box: Sandbox;
beforeAll(async () => {
  box = await Sandbox.create();
});
afterAll(async () => {
  new Tmux(box).killServer();
  await box?.stop();
  await box?.remove();
});

async function until(check: () => boolean, what: string, timeoutMs = AGENT_TURN_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each<{ from: KindProfile; to: KindProfile }>([
  { from: CLAUDE, to: GEMINI },
  { from: GEMINI, to: CODEX },
  { from: CODEX, to: CLAUDE },
  { from: OPENCODE, to: QWEN },
  { from: QWEN, to: OPENCODE },
])("/switch host from $from.label to $to.label", ({ from, to }) => {
  it("starts the other agent with the old conversation in its first request", async () => {
    const word = `PELICAN-${from.kind.toUpperCase()}`;
    const ws = box.workspace(`switch-${from.kind}-${to.kind}`);
    const chat = await Chat.start(box, from.kind, ws);
    try {
      from.fake(box).brain.on(`${word}:`, { text: `Noted: the word is ${word}.` });
      await chat.say(`${word}: remember this word`);
      await chat.waitFor(new RegExp(`Noted: the word is ${word}\\.`));
      await chat.idle();
      const old = chat.thread()!;
      const target = to.fake(box).brain;
      const before = target.mainRequests().length;
      await chat.say(`/switch host ${to.kind}`);
      await chat.waitFor(/New thread with .*starting from a brief/);
      await until(() => target.mainRequests().length > before, `${to.label}'s first request`);
      const first = target.mainRequests()[before];
      // The brief is in the request itself: no tool call was needed to read it.
      expect(first.conversation!.turnsSincePrompt).toBe(0);
      expect(first.text).toContain(word);
      expect(first.text).toContain(`[baton-handoff from=${from.kind} session=${old.session}]`);
      await chat.idle();
    } finally {
      await chat.baton.stop({ cleanup: true });
    }
  });
});

describe("baton handoff resume --agent gemini", () => {
  it("lets Gemini read the brief it starts from, outside its workspace", async () => {
    const tmux = new Tmux(box);
    const ws = box.workspace("handoff-to-gemini");
    const chat = await Chat.start(box, "claude", ws);
    let session: string;
    try {
      CLAUDE.fake(box).brain.on("OSPREY:", { text: "Noted: OSPREY." });
      await chat.say("OSPREY: remember this word");
      await chat.waitFor(/Noted: OSPREY\./);
      await chat.idle();
      session = chat.thread()!.session!;
    } finally {
      await chat.baton.stop({ cleanup: true });
    }
    const gemini = GEMINI.fake(box).brain;
    gemini.on(
      "You are continuing work from another agent session.",
      (c) => ({ tool: "read_file", input: { file_path: /Read the handoff brief at (\S+) first\./.exec(c.lastPrompt)![1] } }),
      (c) => ({ text: c.toolResults.join("\n").includes("OSPREY") ? "I read the brief." : `Could not read the brief: ${c.toolResults.join(" ")}` }),
    );
    const dataDir = box.workspace("handoff-data");
    const launched = await baton(box, ["handoff", "resume", session, "--harness", "claude", "--agent", "gemini", "--launch", "tmux", "--yes"], { cwd: ws, dataDir });
    expect(launched.code, `${launched.stdout}\n${launched.stderr}`).toBe(0);
    const name = tmux.sessions().find((s) => s.startsWith("baton-handoff-"))!;
    const screen = await tmux.waitForScreen(name, /I read the brief\.|Could not read the brief/);
    expect(screen).toContain("I read the brief.");
    tmux.killServer();
  });
});
