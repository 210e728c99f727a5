// Slack's file upload flow in the fake: files.getUploadURLExternal (filename, length → an upload
// URL on this server and a file id), the bytes POSTed to that URL (raw or multipart, as clients
// send them), files.completeUploadExternal (the uploaded files shared into channel_id / thread_ts
// with initial_comment: a message of the bot carrying them). Checked: the token, a filename and a
// positive length, bytes uploaded before completion and matching the announced length, a known
// channel id. Not covered: files.info, file deletion, snippets, alt text, blocks on completion.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { lookup } from "mrmime";

export interface FakeUpload {
  id: string;
  filename: string;
  length: number;
  data?: Buffer;
  mimeType?: string;
  title?: string;
  /** Set once shared into a conversation. */
  shared?: { channel: string; thread_ts?: string; comment?: string };
}

export class FakeSlackUploads {
  readonly files = new Map<string, FakeUpload>();
  private counter = 0;

  constructor(private readonly baseUrl: () => string) {}

  getUploadURLExternal(params: Record<string, any>): Record<string, unknown> {
    const length = Number(params.length);
    if (!params.filename) return { ok: false, error: "invalid_arguments" };
    if (!Number.isInteger(length) || length <= 0) return { ok: false, error: "invalid_arguments" };
    const id = `F0UP${String(++this.counter).padStart(5, "0")}`;
    this.files.set(id, { id, filename: String(params.filename), length });
    return { ok: true, upload_url: `${this.baseUrl()}/upload/${id}`, file_id: id };
  }

  /** Shares the files; returns the answer and the files for the message they make. */
  completeUploadExternal(params: Record<string, any>): { answer: Record<string, unknown>; shared?: FakeUpload[] } {
    const list = Array.isArray(params.files) ? (params.files as Array<{ id?: string; title?: string }>) : undefined;
    if (!list || list.length === 0) return { answer: { ok: false, error: "invalid_arguments" } };
    const files: FakeUpload[] = [];
    for (const entry of list) {
      const file = entry.id ? this.files.get(entry.id) : undefined;
      if (!file?.data) return { answer: { ok: false, error: "file_not_found" } };
      if (file.data.length !== file.length) return { answer: { ok: false, error: "file_upload_size_mismatch" } };
      file.title = entry.title ?? file.filename;
      files.push(file);
    }
    if (!params.channel_id) return { answer: { ok: true, files: files.map(describe) } };
    if (!/^[CDG][A-Z0-9]+$/.test(String(params.channel_id))) return { answer: { ok: false, error: "channel_not_found" } };
    for (const file of files) file.shared = { channel: String(params.channel_id), thread_ts: params.thread_ts, comment: params.initial_comment };
    return { answer: { ok: true, files: files.map(describe) }, shared: files };
  }

  /** POST /upload/<id>: the bytes, raw or as the first file part of a multipart body. */
  async receive(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const file = this.files.get(id);
    if (!file || req.method !== "POST") return void res.writeHead(404).end();
    const type = req.headers["content-type"] ?? "";
    if (type.startsWith("multipart/form-data")) {
      const form = await new Request("http://fake/upload", {
        method: "POST",
        headers: { "content-type": type },
        body: Readable.toWeb(req) as ReadableStream,
        duplex: "half",
      } as RequestInit).formData();
      const part = [...form.values()].find((v): v is File => typeof v !== "string");
      file.data = part ? Buffer.from(await part.arrayBuffer()) : Buffer.from(String([...form.values()][0] ?? ""));
      file.mimeType = part?.type && part.type !== "application/octet-stream" ? part.type : lookup(file.filename);
    } else {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      file.data = Buffer.concat(chunks);
      // Slack works out the type from the bytes and the name, not from what the client says.
      file.mimeType = type && type !== "application/octet-stream" ? type : lookup(file.filename);
    }
    res.writeHead(200, { "content-type": "text/plain" }).end(`OK - ${file.data.length}`);
  }
}

function describe(file: FakeUpload): Record<string, unknown> {
  return { id: file.id, name: file.filename, title: file.title, size: file.length, mimetype: file.mimeType ?? "application/octet-stream" };
}
