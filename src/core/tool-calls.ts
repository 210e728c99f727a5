// The core's side of Baton's MCP tools: whom a call speaks for, and what a tool answers. Bearer
// tokens for the agents Baton runs: each host (a thread's agent, or one of its subagents) gets its
// own token in the MCP server it is given, and the token says which thread it serves. So one
// thread's agent cannot reach another thread's subagents, and a token dies with its process.
import { createHash, randomBytes } from "node:crypto";
import { forgetSecretValues, registerSecretValues } from "../kernel/secrets.js";

const TOKEN_BYTES = 32;

/** Set by Baton for the stdio forwarder of an agent it runs: its own token, and whether it gets the subagent tools. */
export const HOST_TOKEN_ENV = "BATON_MCP_TOKEN";
export const SUBAGENT_TOOLS_ENV = "BATON_MCP_SUBAGENT_TOOLS";

/** Whom an MCP request speaks for. */
export interface McpCaller {
  /** The machine it comes from: `local`, or a configured machine's name. */
  machine: string;
  /** Set for an agent Baton runs: the thread it serves. */
  thread?: string;
  /** Set when that agent is one of the thread's subagents: its name. */
  subagent?: string;
}

/** A tool's answer: text for the agent to read and show, plus the same facts as data. */
export interface ToolReply {
  text: string;
  data: Record<string, unknown>;
}

export class HostTokens {
  /** Callers by the SHA-256 of their token: a lookup by digest leaks nothing about the token. */
  private readonly byDigest = new Map<string, McpCaller>();

  /** `bind` makes a live token speak for another caller: a spare agent's session, made ahead, once a thread takes it. */
  issue(caller: McpCaller): { token: string; revoke(): void; bind(next: McpCaller): void } {
    const token = randomBytes(TOKEN_BYTES).toString("base64url");
    const digest = digestOf(token);
    this.byDigest.set(digest, { ...caller });
    registerSecretValues([token]);
    return {
      token,
      revoke: () => {
        if (this.byDigest.delete(digest)) forgetSecretValues([token]);
      },
      bind: (next) => {
        if (this.byDigest.has(digest)) this.byDigest.set(digest, { ...next });
      },
    };
  }

  lookup(token: string): McpCaller | undefined {
    return this.byDigest.get(digestOf(token));
  }

  get size(): number {
    return this.byDigest.size;
  }
}

function digestOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
