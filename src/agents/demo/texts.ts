// Texts of the demo agent, kept apart so the agent's logic stays short.
import type { ContentBlock } from "@agentclientprotocol/sdk";

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

/** How the demo agent echoes a prompt block: text as it is, anything else as a short note. */
export function describeBlock(b: ContentBlock): string {
  if (b.type === "text") return b.text;
  if (b.type === "resource_link") return `[file ${b.name}${b.size != null ? `, ${b.size} bytes` : ""}]`;
  if (b.type === "image" || b.type === "audio") return `[${b.type} ${b.mimeType}, ${Buffer.from(b.data, "base64").length} bytes]`;
  if (b.type === "resource") return `[embedded ${b.resource.uri}${"text" in b.resource ? `, ${b.resource.text.length} characters` : ""}]`;
  return "";
}
