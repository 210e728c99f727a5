// A small, honest fake of an OpenAI-compatible transcription server (the API self-hosted Whisper
// servers speak), on 127.0.0.1: `POST /v1/audio/transcriptions` with a multipart body (`file`,
// `model`, optional `language`, `response_format`), bearer key checked when one is set, answering
// `{"text": …}` or an OpenAI-style `{"error": {message, type}}`. The transcript is scripted per
// upload by the test (`transcripts`), else it names the bytes it got.
// Not covered: verbose_json, timestamps, streaming, other response formats, audio decoding.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

export interface ReceivedUpload {
  fileName: string;
  mimeType: string;
  bytes: number;
  model: string;
  language?: string;
  authorization?: string;
}

export class FakeTranscriptionServer {
  readonly received: ReceivedUpload[] = [];
  /** Scripted transcripts, first come first used. */
  readonly transcripts: string[] = [];
  /** The next request fails with this status and message. */
  failNext?: { status: number; message: string };
  private server?: Server;
  private port = 0;

  constructor(private readonly apiKey?: string) {}

  /** The base URL Baton is configured with (it appends /audio/transcriptions). */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST" || req.url !== "/v1/audio/transcriptions") return this.error(res, 404, "Not found", "invalid_request_error");
    if (this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) return this.error(res, 401, "Incorrect API key provided", "invalid_request_error");
    let form: FormData;
    try {
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: "POST",
        headers: req.headers as Record<string, string>,
        body: Readable.toWeb(req) as ReadableStream,
        duplex: "half",
      } as RequestInit);
      form = await request.formData();
    } catch {
      return this.error(res, 400, "Could not parse multipart form", "invalid_request_error");
    }
    const file = form.get("file");
    const model = form.get("model");
    if (!(file instanceof File)) return this.error(res, 400, "1 validation error: file is required", "invalid_request_error");
    if (typeof model !== "string" || !model) return this.error(res, 400, "1 validation error: model is required", "invalid_request_error");
    const language = form.get("language");
    const bytes = (await file.arrayBuffer()).byteLength;
    this.received.push({ fileName: file.name, mimeType: file.type, bytes, model, language: typeof language === "string" ? language : undefined, authorization: req.headers.authorization });
    if (this.failNext) {
      const { status, message } = this.failNext;
      this.failNext = undefined;
      return this.error(res, status, message, "server_error");
    }
    const text = this.transcripts.shift() ?? `heard ${bytes} bytes of ${file.type || "audio"}`;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ text }));
  }

  private error(res: ServerResponse, status: number, message: string, type: string): void {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, type, param: null, code: null } }));
  }
}
