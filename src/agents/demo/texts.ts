// Texts of the demo agent, kept apart so the agent's logic stays short.

export const NO_AGENT_NOTICE =
  "_You are talking to Baton's **demo agent**: no agent CLI (Claude Code, Codex, Gemini CLI, OpenCode, Qwen Code, goose) was found on PATH. " +
  "Install one, e.g. `npm install -g @anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp`, or set `agents.default` in the config, then restart Baton. " +
  "Try `recall`, `demo:plan`, `demo:tool`, `demo:permission`, `demo:long` or `demo:slow`._";

const DEFAULT_LONG_BYTES = 20 * 1024;

/** About 20 KB (or `targetBytes`) of markdown with headings, lists and code fences, to exercise splitting. */
export function longMarkdown(targetBytes = DEFAULT_LONG_BYTES): string {
  const parts: string[] = ["# A long answer\n"];
  for (let section = 1; parts.join("").length < targetBytes; section++) {
    parts.push(
      `\n## Section ${section}\n\n` +
        `This paragraph explains step ${section} in some detail, so that the message grows past every platform's limit. ` +
        `It mentions \`inline code\`, **bold text** and a [link](https://example.com/${section}).\n\n` +
        `- first point of section ${section}\n- second point, with *emphasis*\n  - a nested point\n\n` +
        "```ts\n" +
        Array.from({ length: 12 }, (_, i) => `const value${section}_${i} = compute(${section}, ${i}); // line ${i + 1}`).join("\n") +
        "\n```\n",
    );
  }
  parts.push("\nThe end.\n");
  return parts.join("");
}
