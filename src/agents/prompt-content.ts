// Prompt content an agent may not take as sent. A brief (or a file) goes to the agent embedded in
// the prompt as an ACP `resource` block, so its text reaches the model whatever the agent's file
// tools may read (Gemini CLI's refuse paths outside the workspace). An agent that does not
// advertise `promptCapabilities.embeddedContext` gets the same text as a plain text block.
import type { ContentBlock } from "@agentclientprotocol/sdk";

/** A resource block as text, for agents without embedded-context support; other blocks unchanged. */
export function resourceAsText(block: ContentBlock): ContentBlock {
  if (block.type !== "resource" || !("text" in block.resource)) return block;
  return { type: "text", text: `Contents of ${block.resource.uri}:\n\n${block.resource.text}` };
}
