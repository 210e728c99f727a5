// The recorded sessions of the real agent CLIs (test/fixtures/acp/: what claude-agent-acp, codex-acp,
// Gemini CLI, OpenCode and Qwen Code wrote on their ACP wire, recorded by the real-agent suite under
// BATON_RECORD_ACP, the sandbox's temporary root replaced by /FIXTURE_ROOT).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const RECORDED_ACP_DIR = join(import.meta.dirname, "..", "fixtures", "acp");

/** The recordings' file names, sorted. */
export function recordedAcpSessions(): string[] {
  return readdirSync(RECORDED_ACP_DIR)
    .filter((f) => f.endsWith(".jsonl"))
    .sort();
}

/** A recording's lines (one JSON-RPC message each), as the CLI wrote them. */
export function recordedAcpLines(file: string): string[] {
  return readFileSync(join(RECORDED_ACP_DIR, file), "utf8").split("\n").filter(Boolean);
}

/** Each agent message of the recordings, as the text chunks it streamed in. */
export function recordedAgentMessages(): string[][] {
  const messages: string[][] = [];
  for (const file of recordedAcpSessions()) {
    let current: string[] = [];
    for (const line of recordedAcpLines(file)) {
      const update = (JSON.parse(line) as { params?: { update?: { sessionUpdate?: string; content?: { type?: string; text?: string } } } }).params?.update;
      if (update?.sessionUpdate === "agent_message_chunk" && update.content?.type === "text") current.push(update.content.text ?? "");
      else if (current.length) {
        messages.push(current);
        current = [];
      }
    }
    if (current.length) messages.push(current);
  }
  return messages;
}
