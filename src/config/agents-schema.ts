// Where agents run, as the config names it: workspaces (and their isolation), forges, agent
// profiles, custom ACP agents, and the other machines reached over SSH with the agents on them.
import { z } from "zod";
import { durationMs } from "./duration.js";

export const isolationSchema = z.enum(["none", "worktree"], { error: "expected none or worktree" });

export const namedWorkspaceSchema = z
  .object({
    path: z.string().min(1),
    isolation: isolationSchema.optional().describe("Overrides workspaces.isolation for threads in this workspace"),
  })
  .strict();

export const forgeSchema = z
  .object({
    kind: z.enum(["github", "gitlab", "gitea"], { error: "expected github, gitlab or gitea" }),
    token: z.string().min(1).describe("API token allowed to open pull/merge requests (keep it out of the file: ${ENV_VAR})"),
    api_url: z.string().url().optional().describe("API base URL (default: https://api.github.com, https://<host>/api/v4, https://<host>/api/v1)"),
  })
  .strict();

export const profileSchema = z
  .object({
    agent: z.string().describe("Agent kind this profile varies: claude, codex, gemini, opencode, qwen, goose, demo"),
    args: z.array(z.string()).default([]).describe("Extra arguments for the ACP launch command"),
    env: z.record(z.string(), z.string()).default({}).describe("Extra environment for the agent process"),
    model: z.string().optional().describe("Model name, passed as the kind's model flag or env where it has one"),
    command: z.string().optional().describe("Override the executable (an absolute path or a name on PATH)"),
  })
  .strict();

export const customAgentSchema = z
  .object({
    command: z.string().describe("Executable of the agent's ACP server"),
    args: z.array(z.string()).default([]),
    display_name: z.string().optional(),
    runtime: z.string().optional().describe("Session-store runtime id for /session and briefs (claude, codex, …); default: the agent's name"),
    install_hint: z.string().optional(),
  })
  .strict();

const machineAgentSchema = z
  .object({
    command: z.string().describe("Executable of the agent's ACP server on that machine (an absolute path or a name on its PATH)"),
    args: z.array(z.string()).default([]),
  })
  .strict();

/** A machine name: `build` in `build:~/code/api`. `local` is this machine. */
export const MACHINE_NAME = /^[a-z][a-z0-9_-]*$/;

export const machineSchema = z
  .object({
    ssh: z
      .string()
      .regex(/^[^\s-][^\s]*$/, "an ssh destination such as dev@build.internal or a Host alias (no spaces, not starting with -)")
      .describe("ssh destination: user@host, or a Host alias from ~/.ssh/config"),
    port: z.number().int().min(1).max(65535).optional(),
    identity_file: z.string().optional().describe("Private key for this machine (default: ssh's own choice)"),
    known_hosts: z.string().optional().describe("known_hosts file naming this machine's host key (default: ssh's own); host keys are always checked"),
    roots: z.array(z.string()).default(["~"]).describe("Directories on that machine under which agents may run"),
    agents: z.record(z.string(), machineAgentSchema).default({}).describe("Per agent kind: the ACP command on that machine (default: the same command, looked up on its PATH)"),
    env: z.record(z.string(), z.string()).default({}).describe("Extra environment for everything Baton runs there (PATH, for instance)"),
    baton: z
      .union([z.string().min(1), z.array(z.string()).min(1), z.literal(false)])
      .default("baton")
      .describe("How to run Baton there, for its session-store readers, the demo agent and terminal handover; false if it is not installed"),
    data_dir: z.string().optional().describe("Baton's data dir there (default: $BATON_DATA_DIR there, else ~/.baton)"),
    handover: z
      .enum(["tunnel", "listener", "off"])
      .default("tunnel")
      .describe("How `baton launch` there reaches this daemon: an SSH reverse tunnel, the token-protected handover.remote_listen listener, or not at all"),
    handover_url: z.string().url().optional().describe("With handover: listener, the URL that machine reaches the listener at (http://baton.lan:8790/mcp)"),
    connect_timeout: durationMs.default(10_000),
    control_persist: durationMs.default(600_000).describe("How long an idle SSH connection stays open for the next start"),
  })
  .strict();
