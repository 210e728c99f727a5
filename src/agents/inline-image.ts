// Files from the chat as the agent takes them: a local image (or audio) sent as a file link becomes
// an image (audio) block for agents that accept it; anything else stays a link.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";

const MAX_INLINE_IMAGE_BYTES = 10 * 1024 * 1024;

/** A local image (or audio) sent as a file link becomes an image (audio) block for agents that accept it. */
export async function inlineMedia(block: acp.ContentBlock, accepts: { image: boolean; audio: boolean }): Promise<acp.ContentBlock> {
  if (block.type !== "resource_link" || !block.uri.startsWith("file://")) return block;
  const type = block.mimeType?.startsWith("image/") ? "image" : block.mimeType?.startsWith("audio/") ? "audio" : undefined;
  if (!type || !accepts[type] || (block.size ?? 0) > MAX_INLINE_IMAGE_BYTES) return block;
  try {
    const data = (await readFile(fileURLToPath(block.uri))).toString("base64");
    return type === "image" ? { type, mimeType: block.mimeType!, data, uri: block.uri } : { type, mimeType: block.mimeType!, data };
  } catch {
    return block; // the link still tells the agent where the file was
  }
}
