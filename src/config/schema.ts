// The config file's shape. Every key is documented in config.example.yaml; `baton config schema`
// prints this as JSON Schema for editors.
import { z } from "zod";
import { PLATFORM_KINDS } from "../platforms/registry.js";
import { bindingSchema, filesSchema, scheduleSchema, subagentsSchema, timeZone, voiceSchema } from "./features.js";
import { peopleSchema, principal } from "./principals.js";
import { live, reloadKeys, restart } from "./reload-marks.js";
import { DURATION_UNIT_MS, durationMs } from "./duration.js";
import { customAgentSchema, forgeSchema, isolationSchema, MACHINE_NAME, machineSchema, namedWorkspaceSchema, profileSchema } from "./agents-schema.js";

/** The ops listener's address when `ops.listen` is unset (a busy port falls back to a free one). */
export const DEFAULT_OPS_LISTEN = "127.0.0.1:8788";

/**
 * The hold before an answer's first send where the chat's rate limit has no room for a send and
 * an edit at once: an answer that ends within it (the demo agent's short one takes ~75 ms) is one
 * message instead of a message and an edit. Measured in docs/benchmarks.md ("Pacing").
 */
const FIRST_SEND_HOLD_MS = 100;

const renderingSchema = z
  .object({
    flush_debounce_ms: z.number().int().nonnegative().default(500),
    first_send_hold_ms: z
      .number()
      .int()
      .nonnegative()
      .max(1000)
      .default(FIRST_SEND_HOLD_MS)
      .describe("Where a chat's rate limit is nearly spent, how long the first text of an answer waits, so a fast answer goes out whole as one message rather than a message and an edit"),
    min_edit_gap_ms: z.number().int().nonnegative().default(1000).describe("Least time between two edits of one message while it grows (its last text goes at once)"),
    show_thoughts: z.boolean().default(false),
    show_tools: z.boolean().default(true),
    show_usage: z.boolean().default(true).describe("One quiet line of tokens (and cost, where the agent gives it) at the end of each turn"),
  })
  .strict();

/** What one person may use (limits.per_person); each is optional, absent means unlimited. */
const limitsSchema = z
  .object({
    per_person: z
      .object({
        turns_per_hour: z.number().int().positive().optional().describe("Prompts a person may send to agents in one clock hour"),
        concurrent_turns: z.number().int().positive().optional().describe("A person's prompts running or waiting in a queue at once"),
        usd_per_day: z.number().positive().optional().describe("Dollars a person's turns may cost in a day (the cost agents report, as Claude Code does)"),
        tokens_per_day: z.number().int().positive().optional().describe("Tokens a person's turns may use in a day (as the agents report them)"),
      })
      .strict()
      .default({}),
    admins: z.boolean().default(false).describe("Admins are held to the limits too (by default they are exempt)"),
  })
  .strict()
  .describe("Limits per person, counted from the agents' usage reports in store.kv (memory, Redis) or PostgreSQL (store.url); a day starts at midnight in time_zone");

const baseConfigSchema = z
  .object({
    data_dir: restart(z.string().optional().describe("Where threads, tokens and caches live (default ~/.baton)")),
    log: z
      .object({
        level: live(z.enum(["trace", "debug", "info", "warn", "error", "silent"]).default("info")),
        format: restart(z.enum(["auto", "pretty", "json"]).default("auto").describe("auto: JSON lines when stderr is not a terminal (a service, a container), else pretty")),
      })
      .strict()
      .default({ level: "info", format: "auto" }),
    shutdown_grace: live(durationMs.default(30_000).describe("On SIGTERM, how long running turns may finish before they are cancelled")),
    ops: restart(
      z
        .object({
          listen: z.string().optional().describe(`host:port (or a port) of /healthz, /metrics and /status; "off" to disable. Default ${DEFAULT_OPS_LISTEN}, else a free port`),
          token: z
            .string()
            .min(16, "at least 16 characters")
            .optional()
            .describe("Bearer token /metrics and /status then require (Authorization: Bearer <token>); set it when ops.listen is not a loopback address"),
        })
        .strict()
        .default({}),
    ),
    access: live(
      z
        .object({
          allow: z.array(principal).default([]).describe("Who may use the bot: each is a member"),
          roles: z
            .object({
              admin: z.array(principal).default([]).describe("Admins: besides what members do, the admin-only commands and answering or stopping anyone's turn"),
              member: z.array(principal).default([]).describe("Members: talk to agents, answer and stop their own turns (as access.allow)"),
            })
            .strict()
            .default({ admin: [], member: [] })
            .describe("web (the web chat's token holder) is an admin unless listed under member only"),
          commands: z
            .record(z.string().regex(/^[a-z]+$/, "a command name without the slash, such as schedule"), z.enum(["admin", "member"]))
            .default({})
            .describe(
              "A command's role: admin makes the whole command admin-only; member opens the parts that are admin-only by default (schedule add/rm, workspace --switch, new <workspace>, switch, session --switch, stop of another's turn)",
            ),
          refusal_interval: durationMs.default(60_000).describe("At most one refusal reply per stranger in this interval"),
          people: peopleSchema,
          group_ttl: durationMs
            .default(300_000)
            .describe("How long an answer about a platform's group (a Slack user group, a Discord role, a Matrix power level, a Telegram group's admins) is kept before it is looked up again"),
        })
        .strict()
        .default({ allow: [], roles: { admin: [], member: [] }, commands: {}, refusal_interval: 60_000, people: {}, group_ttl: 300_000 }),
    ),
    limits: live(limitsSchema.default({ per_person: {}, admins: false })),
    approvals: live(
      z
        .object({
          by: z
            .enum(["requester_or_admin", "requester", "any_member"])
            .default("requester_or_admin")
            .describe("Who answers an agent's permission request: the person whose prompt started the turn, or an admin (default); only that person; any member"),
        })
        .strict()
        .default({ by: "requester_or_admin" }),
    ),
    agents: live(
      z
        .object({
          default: z.string().default("auto").describe("Agent kind or profile for new threads; auto = first installed, else demo"),
          max_live_hosts: z.number().int().positive().default(8),
          idle_shutdown: durationMs.default(600_000),
          spare_host: z
            .boolean()
            .default(true)
            .describe(
              "Keep one agent process of the default agent started ahead, with a session open (in the default workspace, on this machine), for the next new thread; it counts against max_live_hosts",
            ),
          nice: z
            .union([z.literal("idle"), z.number().int().min(0).max(19)], { error: "expected idle, or a whole number from 0 to 19" })
            .default(10)
            .describe(
              "CPU priority of agent processes on this machine and what they run (builds, test suites), so that they cannot slow the chat. A number: that many steps below Baton's own priority, as `nice -n` starts them (10 by default); 0 = Baton's own priority. idle: Linux's idle scheduling class (set with chrt from util-linux): agents get only the cycles nothing else wants and give way at once when Baton wakes up, but an agent's build or tests nearly stop while other programs of the same session or service keep every core busy; where there is no such class, the lowest nice value",
            ),
          start_timeout: z
            .object({
              spawn: durationMs.default(10_000).describe("The agent process must have started within this"),
              initialize: durationMs.default(60_000).describe("The agent must answer ACP initialize within this"),
              session: durationMs.default(120_000).describe("The agent must open the session (new, resume or load) within this"),
            })
            .strict()
            .default({ spawn: 10_000, initialize: 60_000, session: 120_000 })
            .describe("A step of starting an agent that takes longer is reported like a crash, and the process stopped"),
          profiles: z.record(z.string(), profileSchema).default({}),
          custom: z.record(z.string(), customAgentSchema).default({}).describe("Any other ACP agent: name → command"),
          subagents: subagentsSchema.default(subagentsSchema.parse({})),
        })
        .strict()
        .default({
          default: "auto",
          max_live_hosts: 8,
          idle_shutdown: 600_000,
          spare_host: true,
          nice: 10,
          start_timeout: { spawn: 10_000, initialize: 60_000, session: 120_000 },
          profiles: {},
          custom: {},
          subagents: subagentsSchema.parse({}),
        }),
    ),
    workspaces: live(
      z
        .object({
          roots: z.array(z.string()).default([]).describe("Directories under which agents may run; empty = the home directory"),
          default: z.string().optional().describe("Workspace for new threads (default: the directory baton started in)"),
          named: z
            .record(z.string(), z.union([z.string(), namedWorkspaceSchema]))
            .default({})
            .describe("Short names for /workspace --switch: a path, or { path, isolation }"),
          isolation: isolationSchema
            .default("none")
            .describe(
              "worktree: each new thread in a git workspace works in a git worktree of its own, on a branch baton/<thread>-<first prompt> (see /diff, /merge, /pr); none: threads share the workspace's checkout",
            ),
          base_branch: z.string().min(1).optional().describe("Branch new thread worktrees start from and /merge merges into (default: the workspace's current branch)"),
          allow_outside_roots: z
            .enum(["never", "confirm"])
            .default("never")
            .describe("never: the roots are a hard ceiling. confirm: an agent may propose a directory outside them, allowed once a person in access.allow confirms it in the chat"),
        })
        .strict()
        .default({ roots: [], named: {}, isolation: "none", allow_outside_roots: "never" }),
    ),
    rendering: live(renderingSchema.default(renderingSchema.parse({}))),
    handover: restart(
      z
        .object({
          code_ttl: durationMs.default(120_000),
          failed_per_sender_per_min: z.number().int().positive().default(5),
          failed_total_per_min: z.number().int().positive().default(60),
          mcp_listen: z.string().default("127.0.0.1:0"),
          remote_listen: z.string().optional().describe("Opt-in: a second MCP listener (host:port, may be a network address) for machines with handover: listener; each machine has its own token"),
        })
        .strict()
        .default({ code_ttl: 120_000, failed_per_sender_per_min: 5, failed_total_per_min: 60, mcp_listen: "127.0.0.1:0" }),
    ),
    files: restart(filesSchema.default(filesSchema.parse({}))),
    machines: restart(z.record(z.string(), machineSchema).default({}).describe("Other machines agents run on, reached with OpenSSH; a workspace names its machine: build:~/code/api")),
    store: restart(
      z
        .object({
          kv: z.string().default("memory").describe("memory, or redis://host:port for pickup codes and rate limits"),
          url: z
            .string()
            .regex(/^postgres(ql)?:\/\//, "a postgres:// URL (postgres://user:password@host:5432/baton)")
            .optional()
            .describe("PostgreSQL for several instances: thread events and leadership live there; one instance leads, the others stand by and take over"),
          lease_ms: z.number().int().min(1_000).default(5_000).describe("With store.url: a leader that cannot renew its lease for this long stops serving, and a standby takes over"),
          renew_ms: z.number().int().min(100).default(1_000).describe("With store.url: how often the leader renews its lease and a standby tries to take over"),
        })
        .strict()
        .refine((store) => store.renew_ms * 2 <= store.lease_ms, { message: "store.renew_ms must be at most half of store.lease_ms (a lease must survive a missed renewal)", path: ["renew_ms"] })
        .default({ kv: "memory", lease_ms: 5_000, renew_ms: 1_000 }),
    ),
    instance: restart(
      z
        .object({ id: z.string().min(1).max(48).optional().describe("This instance's name among several (store.url); default: host name and data dir") })
        .strict()
        .default({}),
    ),
    audit: live(
      z
        .object({
          keep: durationMs
            .default(90 * DURATION_UNIT_MS.d)
            .describe("How long audit events (refusals, role decisions, approvals, admin commands, turns) are kept; older ones are deleted, within a day"),
        })
        .strict()
        .default({ keep: 90 * DURATION_UNIT_MS.d }),
    ),
    forges: live(
      z
        .record(z.string(), forgeSchema)
        .default({})
        .describe("Code forges /pr opens pull/merge requests on, by the host name of the workspace's remote URL (its port ignored): github.com: { kind: github, token }"),
    ),
    bindings: live(z.array(bindingSchema).default([]).describe("Routes bound to a workspace and agent: new threads there start so; the first match wins")),
    schedules: live(z.array(scheduleSchema).default([]).describe("Prompts sent into a route's thread at the times of a cron pattern")),
    schedule_limits: live(
      z
        .object({
          min_interval: durationMs.default(60_000).describe("A chat schedule may run at most this often; a cron pattern that runs more often is refused"),
          per_route: z.number().int().positive().default(20).describe("Chat schedules one chat may have"),
          per_person: z.number().int().positive().default(50).describe("Chat schedules one person may have, over every chat"),
        })
        .strict()
        .default({ min_interval: 60_000, per_route: 20, per_person: 50 }),
    ),
    time_zone: live(timeZone.optional().describe("Time zone of schedules and of the day limits.per_person counts (default: this machine's)")),
    voice: live(voiceSchema.default({})),
    platforms: restart(z.record(z.string(), z.record(z.string(), z.unknown())).default({})),
  })
  .strict();

/** What a reload does with each key, read from the marks above (it throws here, at load, on an unmarked key). */
export const CONFIG_RELOAD_KEYS = reloadKeys(baseConfigSchema);

export const configSchema = baseConfigSchema.superRefine((config, ctx) => {
  for (const [name, machine] of Object.entries(config.machines)) {
    if (name === "local") ctx.addIssue({ code: "custom", path: ["machines", name], message: "`local` is this machine; give the other machine another name" });
    else if (!MACHINE_NAME.test(name)) ctx.addIssue({ code: "custom", path: ["machines", name], message: "a machine name: lower-case letters, digits, - and _, starting with a letter" });
    if (machine.handover !== "listener") continue;
    if (!machine.handover_url) ctx.addIssue({ code: "custom", path: ["machines", name, "handover_url"], message: "handover: listener needs the URL that machine reaches this daemon at" });
    if (!config.handover.remote_listen)
      ctx.addIssue({ code: "custom", path: ["handover", "remote_listen"], message: `machine ${name} has handover: listener; set handover.remote_listen (host:port) to open it` });
  }
});

export type BatonConfig = z.output<typeof configSchema>;

/** Resolves the platform kind of an instance: its `kind` key, else its name (`slack_acme` needs `kind: slack`). */
export function platformKindOf(name: string, section: Record<string, unknown>): string | undefined {
  const kind = typeof section.kind === "string" ? section.kind : name;
  return PLATFORM_KINDS[kind] ? kind : undefined;
}

/** JSON Schema for editors: the core schema with each platform kind's schema under `platforms`. */
export function configJsonSchema(): unknown {
  const platformSchemas = Object.values(PLATFORM_KINDS).map((k) => k.schema);
  const withPlatforms = baseConfigSchema.extend({
    platforms: z.record(z.string(), z.union(platformSchemas as [z.ZodType, z.ZodType, ...z.ZodType[]])).optional(),
  });
  return z.toJSONSchema(withPlatforms, { io: "input", unrepresentable: "any" });
}
