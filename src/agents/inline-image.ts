// Images the user sent, inlined for agents that accept images (others get the file link).
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";

const MAX_INLINE_IMAGE_BYTES = 10 * 1024 * 1024;

/** A local image sent as a file link becomes an image block for agents that accept images. */
export async function inlineImage(block: acp.ContentBlock): Promise<acp.ContentBlock> {
  if (block.type !== "resource_link" || !block.mimeType?.startsWith("image/") || !block.uri.startsWith("file://")) return block;
  if ((block.size ?? 0) > MAX_INLINE_IMAGE_BYTES) return block;
  try {
    const data = await readFile(fileURLToPath(block.uri));
    return { type: "image", mimeType: block.mimeType, data: data.toString("base64"), uri: block.uri };
  } catch {
    return block; // the link still tells the agent where the file was
  }
}
