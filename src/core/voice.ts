// Voice notes: an audio file a user sent is transcribed through an OpenAI-compatible endpoint
// (`POST <voice.transcription.url>/audio/transcriptions`, multipart: file, model, language), and the
// transcript goes to the agent as the prompt (and back to the chat, so the user sees what was
// heard). Without an endpoint the audio goes to agents that take audio; other agents cannot hear
// it, and the user is told how to turn transcription on.
import { urlForDisplay } from "../kernel/secrets.js";
import { openAsBlob } from "node:fs";
import { BatonError } from "../kernel/errors.js";
import type { LocalFile } from "../commands/context.js";
import type { VoiceConfig } from "../config/features.js";

export class TranscriptionError extends BatonError {}

export const ENABLE_VOICE_TEXT =
  "Voice notes need a transcription server: set `voice.transcription.url` in the config to an OpenAI-compatible endpoint (a self-hosted Whisper server, for instance), or use an agent that takes audio.";

export function isVoiceNote(file: { mimeType?: string }): boolean {
  return file.mimeType?.startsWith("audio/") ?? false;
}

export class Transcriber {
  constructor(private readonly config: NonNullable<VoiceConfig["transcription"]>) {}

  async transcribe(file: LocalFile): Promise<string> {
    const { url, api_key: apiKey, model, language, timeout } = this.config;
    const form = new FormData();
    form.append("file", await openAsBlob(file.path, { type: file.mimeType ?? "application/octet-stream" }), file.name);
    form.append("model", model);
    form.append("response_format", "json");
    if (language) form.append("language", language);
    const endpoint = `${url.replace(/\/+$/, "")}/audio/transcriptions`;
    // The config refuses this already; should one get through, its credentials are never shown.
    if (URL.canParse(endpoint) && (new URL(endpoint).username || new URL(endpoint).password)) {
      throw new TranscriptionError(
        "The voice note was not transcribed: voice.transcription.url has a user name or password in it, which Node's fetch refuses, so nothing was sent. Put the secret in voice.transcription.api_key instead.",
      );
    }
    let response: Response;
    try {
      response = await fetch(endpoint, { method: "POST", body: form, headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {}, signal: AbortSignal.timeout(timeout) });
    } catch (error) {
      const why = error instanceof Error && error.name === "TimeoutError" ? `no answer within ${Math.round(timeout / 1000)} s` : "it could not be reached";
      throw new TranscriptionError(`The transcription server at ${urlForDisplay(url)} did not transcribe the voice note: ${why}.`, { cause: error });
    }
    const body = (await response.json().catch(() => undefined)) as { text?: unknown; error?: { message?: unknown } } | undefined;
    if (!response.ok) {
      const message = typeof body?.error?.message === "string" ? `: ${body.error.message.slice(0, 200)}` : "";
      throw new TranscriptionError(`The transcription server answered ${response.status}${message}.`);
    }
    if (typeof body?.text !== "string") throw new TranscriptionError("The transcription server's answer had no text.");
    return body.text.trim();
  }
}
