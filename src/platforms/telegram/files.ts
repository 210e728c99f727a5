// Photos and documents a user sent, as descriptors the core fetches only for allowed users: the
// Bot API's getFile, then the file's bytes from the API's file endpoint (or straight from disk
// when a self-hosted Bot API server runs with `--local` and answers with a path of its own).
import { createReadStream } from "node:fs";
import path from "node:path";
import type { Api } from "grammy/web";
import type { InboundFile } from "../contract.js";
import { httpPlatformError, networkPlatformError } from "../kit/errors.js";
import { toPlatformError } from "./errors.js";
import type { AttachmentRef } from "./parse.js";

export interface FileSource {
  api: Api;
  apiRoot: string;
  token: string;
}

export function telegramFile(attachment: AttachmentRef, source: FileSource): InboundFile {
  return {
    name: attachment.name,
    mimeType: attachment.mimeType,
    size: attachment.size,
    fetch: async (signal) => {
      let filePath: string | undefined;
      try {
        filePath = (await source.api.getFile(attachment.fileId)).file_path;
      } catch (error) {
        throw toPlatformError(error, "find a file", source.token);
      }
      if (!filePath) throw httpPlatformError("Telegram", "give a download path for the file", { status: 400, description: "no file_path" });
      if (path.isAbsolute(filePath)) return createReadStream(filePath);
      let response: Response;
      try {
        response = await fetch(`${source.apiRoot}/file/bot${source.token}/${filePath}`, { signal });
      } catch (error) {
        // The URL holds the token: only the error's name travels on.
        throw networkPlatformError("Telegram", "download a file", error instanceof Error ? error.name : "fetch failed");
      }
      if (!response.ok || !response.body) throw httpPlatformError("Telegram", "download a file", { status: response.status, description: response.statusText });
      return response.body as unknown as AsyncIterable<Uint8Array>;
    },
  };
}
