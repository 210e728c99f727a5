// The config file's shape. Every key is documented in config.example.yaml; `baton config schema`
// prints this as JSON Schema for editors.
import { z } from "zod";
import { PLATFORM_KINDS } from "../platforms/registry.js";

const durationMs = z
  .union([z.number().int().nonnegative(), z.string().regex(/^\d+(ms|s|m|h|d)$/, "a duration such as 500ms, 30s, 10m, 1h or 7d")])
  .transform((v) => (typeof v === "number" ? v : parseDuration(v)));

const DURATION_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1]) * DURATION_UNIT_MS[m[2]];
}

const profileSchema = z
  .object({
    agent: z.string().describe("Agent kind this profile varies: claude, codex, gemini, opencode, qwen, goose, demo"),
    args: z.array(z.string()).default([]).describe("Extra arguments for the ACP launch command"),
    env: z.record(z.string(), z.string()).default({}).describe("Extra environment for the agent process"),
    model: z.string().optional().describe("Model name, passed as the kind's model flag or env where it has one"),
    command: z.string().optional().describe("Override the executable (an absolute path or a name on PATH)"),
  })
  .strict();

const customAgentSchema = z
  .object({
    command: z.string().describe("Executable of the agent's ACP server"),
    args: z.array(z.string()).default([]),
    display_name: z.string().optional(),
    runtime: z.string().optional().describe("Session-store runtime id for /session and briefs (claude, codex, …); default: the agent's name"),
    install_hint: z.string().optional(),
  })
  .strict();

const renderingSchema = z
  .object({
    flush_debounce_ms: z.number().int().nonnegative().default(500),
    min_edit_gap_ms: z.number().int().nonnegative().default(1000),
    show_thoughts: z.boolean().default(false),
    show_tools: z.boolean().default(true),
  })
  .strict();

const MIB = 1024 * 1024;

const filesSchema = z
  .object({
    max_total_bytes: z.number().int().positive().default(1024 * MIB).describe("Files users sent, kept for the agents: at most this much in all (oldest go first)"),
    max_route_bytes: z.number().int().positive().default(256 * MIB).describe("… and at most this much per conversation"),
    max_age: durationMs.default(7 * 86_400_000).describe("Files older than this are deleted"),
  })
  .strict();

export const configSchema = z
  .object({
    data_dir: z.string().optional().describe("Where threads, tokens and caches live (default ~/.baton)"),
    log: z
      .object({
        level: z.enum(["trace", "debug", "info", "warn", "error", "silent"]).default("info"),
        format: z.enum(["pretty", "json"]).default("pretty"),
      })
      .strict()
      .default({ level: "info", format: "pretty" }),
    access: z
      .object({
        allow: z.array(z.string().regex(/^[a-z0-9_]+:.+$/, "a user id with its platform, such as telegram:123456")).default([]),
        refusal_interval: durationMs.default(60_000).describe("At most one refusal reply per stranger in this interval"),
      })
      .strict()
      .default({ allow: [], refusal_interval: 60_000 }),
    agents: z
      .object({
        default: z.string().default("auto").describe("Agent kind or profile for new threads; auto = first installed, else demo"),
        max_live_hosts: z.number().int().positive().default(8),
        idle_shutdown: durationMs.default(600_000),
        profiles: z.record(z.string(), profileSchema).default({}),
        custom: z.record(z.string(), customAgentSchema).default({}).describe("Any other ACP agent: name → command"),
      })
      .strict()
      .default({ default: "auto", max_live_hosts: 8, idle_shutdown: 600_000, profiles: {}, custom: {} }),
    workspaces: z
      .object({
        roots: z.array(z.string()).default([]).describe("Directories under which agents may run; empty = the home directory"),
        default: z.string().optional().describe("Workspace for new threads (default: the directory baton started in)"),
        named: z.record(z.string(), z.string()).default({}).describe("Short names for /workspace --switch"),
      })
      .strict()
      .default({ roots: [], named: {} }),
    rendering: renderingSchema.default(renderingSchema.parse({})),
    handover: z
      .object({
        code_ttl: durationMs.default(120_000),
        failed_per_sender_per_min: z.number().int().positive().default(5),
        failed_total_per_min: z.number().int().positive().default(60),
        mcp_listen: z.string().default("127.0.0.1:0"),
      })
      .strict()
      .default({ code_ttl: 120_000, failed_per_sender_per_min: 5, failed_total_per_min: 60, mcp_listen: "127.0.0.1:0" }),
    files: filesSchema.default(filesSchema.parse({})),
    store: z
      .object({ kv: z.string().default("memory").describe("memory, or redis://host:port for pickup codes and rate limits") })
      .strict()
      .default({ kv: "memory" }),
    platforms: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  })
  .strict();

export type BatonConfig = z.output<typeof configSchema>;
export type ProfileConfig = z.output<typeof profileSchema>;

/** Resolves the platform kind of an instance: its `kind` key, else its name (`slack_acme` needs `kind: slack`). */
export function platformKindOf(name: string, section: Record<string, unknown>): string | undefined {
  const kind = typeof section.kind === "string" ? section.kind : name;
  return PLATFORM_KINDS[kind] ? kind : undefined;
}

/** JSON Schema for editors: the core schema with each platform kind's schema under `platforms`. */
export function configJsonSchema(): unknown {
  const platformSchemas = Object.values(PLATFORM_KINDS).map((k) => k.schema);
  const withPlatforms = configSchema.extend({
    platforms: z.record(z.string(), z.union(platformSchemas as [z.ZodType, z.ZodType, ...z.ZodType[]])).optional(),
  });
  return z.toJSONSchema(withPlatforms, { io: "input", unrepresentable: "any" });
}
