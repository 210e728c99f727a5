// Baton's session-store readers over the files the real CLIs wrote: list, export, native resume.
import { describeStoreScenarios } from "./support/store-scenarios.js";
import { CLAUDE, CODEX, GEMINI, OPENCODE, QWEN } from "./support/kinds.js";
import { installedVersion } from "./support/sandbox.js";

const only = process.env.BATON_AGENTS_ONLY?.split(",");
const wanted = (kind: string) => !only || only.includes(kind);

if (wanted("claude")) {
  describeStoreScenarios({
    profile: CLAUDE,
    storePaths: [".claude/projects"],
    terminalRun: (prompt) => ["-p", prompt],
    terminalResume: (id, prompt) => ["--resume", id, "-p", prompt],
    versions: { "@anthropic-ai/claude-code": installedVersion("@anthropic-ai/claude-code"), "@agentclientprotocol/claude-agent-acp": installedVersion("@agentclientprotocol/claude-agent-acp") },
    readyScreen: /for shortcuts|\? for|>\s*$/m,
  });
}

if (wanted("codex")) {
  describeStoreScenarios({
    profile: CODEX,
    storePaths: [".codex/sessions", ".codex/session_index.jsonl"],
    terminalRun: (prompt) => ["exec", "--skip-git-repo-check", prompt],
    terminalResume: (id, prompt) => ["exec", "--skip-git-repo-check", "resume", id, prompt],
    versions: { "@openai/codex": installedVersion("@openai/codex"), "@agentclientprotocol/codex-acp": installedVersion("@agentclientprotocol/codex-acp") },
    readyScreen: /context left|Ask Codex|send/i,
  });
}

if (wanted("gemini")) {
  describeStoreScenarios({
    profile: GEMINI,
    storePaths: [".gemini/tmp"],
    terminalRun: (prompt) => ["-p", prompt],
    terminalResume: (id, prompt) => ["--resume", id, "-p", prompt],
    versions: { "@google/gemini-cli": installedVersion("@google/gemini-cli") },
    readyScreen: /Type your message|context left/i,
    resumeInAnotherMinute: true,
  });
}

if (wanted("opencode")) {
  describeStoreScenarios({
    profile: OPENCODE,
    storePaths: [".local/share/opencode/opencode.db"],
    terminalRun: (prompt) => OPENCODE.oneShot(prompt),
    terminalResume: (id, prompt) => ["run", "--session", id, ...prompt.split(" ")],
    versions: { "opencode-ai": installedVersion("opencode-ai") },
    readyScreen: /ctrl\+p|Ask anything|tab agents/i,
  });
}

if (wanted("qwen")) {
  describeStoreScenarios({
    profile: QWEN,
    storePaths: [".qwen/projects"],
    terminalRun: (prompt) => ["-p", prompt],
    terminalResume: (id, prompt) => ["--resume", id, "-p", prompt],
    versions: { "@qwen-code/qwen-code": installedVersion("@qwen-code/qwen-code") },
    readyScreen: /Type your message|context left/i,
  });
}
