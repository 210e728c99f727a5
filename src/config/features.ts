// Config sections for what happens in the chat beyond one prompt and its answer: routes bound to a
// workspace and agent, scheduled prompts, voice notes, files sent both ways, subagents. Kept apart
// from schema.ts so each stays short.
import { Cron } from "croner";
import { z } from "zod";
import { refuseUrlCredentials } from "../platforms/kit/config.js";
import { principal } from "./principals.js";
import { durationMs } from "./duration.js";

/** A route or a route glob: `slack:T1/C2*`, `telegram:-1001234567890`, `web:*` (`*` any run of characters, `?` one). */
const routePattern = z.string().regex(/^[a-z0-9_*?]+:.+$/, "a route or route glob with its platform, such as slack:T1/C2* or web:*");

export const bindingSchema = z
  .object({
    match: routePattern.describe("Route or route glob; the first binding that matches a route wins"),
    workspace: z.string().min(1).describe("Workspace of new threads there: a name from workspaces.named, a path, or <machine>:<path>"),
    agent: z.string().optional().describe("Agent kind or profile of new threads there (default: agents.default)"),
    profile: z.string().optional().describe("Profile of that agent"),
    isolation: z.enum(["none", "worktree"]).optional().describe("none or worktree for threads there (default: the named workspace's, else workspaces.isolation)"),
    allow: z
      .array(principal)
      .optional()
      .describe("Narrows who may talk in the bound channels: only these (users or groups), and only if access.allow or access.roles let them in too; admins included"),
  })
  .strict();

/** An IANA time zone name (`Europe/Berlin`, `UTC`), checked against the runtime's zone data. */
export const timeZone = z.string().refine(isTimeZone, "an IANA time zone such as Europe/Berlin or UTC");

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const scheduleSchema = z
  .object({
    route: z
      .string()
      .regex(/^[a-z0-9_]+:.+$/, "a route such as slack:T1/C2 or telegram:-1001234567890")
      .describe("Where the prompt is sent (into that route's thread)"),
    cron: z
      .string()
      .superRefine((p, ctx) => {
        const problem = cronProblem(p);
        if (problem) ctx.addIssue({ code: "custom", message: `not a cron pattern (${problem}); e.g. "0 9 * * 1-5" is 09:00 on weekdays` });
      })
      .describe('Cron pattern: "0 9 * * 1-5" (minute hour day month weekday), an optional leading seconds field'),
    prompt: z.string().min(1).describe("What is sent to the agent"),
    time_zone: timeZone.optional().describe("Time zone of the pattern (default: the top-level time_zone)"),
  })
  .strict();

/** Why a cron pattern is not one, or undefined when it is. */
export function cronProblem(pattern: string): string | undefined {
  try {
    new Cron(pattern, { paused: true }).stop();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export const voiceSchema = z
  .object({
    transcription: z
      .object({
        url: z.string().url().describe("Base URL of an OpenAI-compatible server (http://127.0.0.1:8000/v1); Baton posts to <url>/audio/transcriptions"),
        api_key: z.string().optional().describe("Sent as a bearer token"),
        model: z.string().default("whisper-1"),
        language: z.string().optional().describe("ISO-639-1 language hint (en, de, …)"),
        timeout: z.number().int().positive().default(120_000).describe("Milliseconds a transcription may take"),
      })
      .strict()
      .superRefine(refuseUrlCredentials("url", "api_key"))
      .optional()
      .describe("Voice notes are transcribed here and the transcript sent as the prompt; without it they go as audio to agents that take audio"),
  })
  .strict();

export type BindingConfig = z.output<typeof bindingSchema>;
export type ScheduleConfig = z.output<typeof scheduleSchema>;
export type VoiceConfig = z.output<typeof voiceSchema>;

export const subagentsSchema = z
  .object({
    max_per_thread: z
      .number()
      .int()
      .positive()
      .default(6)
      .describe("Subagents a thread's agent may have queued or running at once (initialize_subagents asking for more gets an error naming this limit)"),
  })
  .strict();

const MIB = 1024 * 1024;

export const filesSchema = z
  .object({
    max_total_bytes: z
      .number()
      .int()
      .positive()
      .default(1024 * MIB)
      .describe("Files users sent, kept for the agents: at most this much in all (oldest go first)"),
    max_route_bytes: z
      .number()
      .int()
      .positive()
      .default(256 * MIB)
      .describe("… and at most this much per conversation"),
    max_age: durationMs.default(7 * 86_400_000).describe("Files older than this are deleted"),
    max_upload_bytes: z
      .number()
      .int()
      .positive()
      .default(20 * MIB)
      .describe("Largest file an agent (or /file) sends into the chat"),
  })
  .strict();
