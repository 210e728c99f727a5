// The ACP SDK (6 MB of heap, mostly its protocol schemas) loads with the first host, while that
// host's agent process boots, so an idle Baton does not carry it and the first answer does not wait
// for it. With it comes the parser of `session/update` notifications (session-update-parse.ts).
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { SessionNotification } from "@agentclientprotocol/sdk";
import { sessionUpdateParser } from "./session-update-parse.js";

export type AcpSdk = typeof import("@agentclientprotocol/sdk");

export interface AgentSdk {
  acp: AcpSdk;
  /** Parses `session/update` params; undefined: leave it to the SDK's own check. */
  parseSessionUpdate?: (params: unknown) => SessionNotification;
}

/** The SDK's protocol schemas, a module its package does not export: found next to its entry file. */
const SCHEMA_MODULE = "../schema/zod.gen.js";

let loading: Promise<AgentSdk> | undefined;

export function loadAgentSdk(): Promise<AgentSdk> {
  return (loading ??= Promise.all([import("@agentclientprotocol/sdk"), loadSessionSchema()]).then(([acp, schema]) => ({
    acp,
    parseSessionUpdate: schema && sessionUpdateParser(schema),
  })));
}

/** The SDK's schema of the notification; undefined if a later SDK moved it (then the SDK checks each update itself). */
async function loadSessionSchema(): Promise<{ parse(params: unknown): unknown } | undefined> {
  try {
    const entry = pathToFileURL(createRequire(import.meta.url).resolve("@agentclientprotocol/sdk"));
    const schemas = (await import(new URL(SCHEMA_MODULE, entry).href)) as { zSessionNotification?: { parse(params: unknown): unknown } };
    return typeof schemas.zSessionNotification?.parse === "function" ? schemas.zSessionNotification : undefined;
  } catch {
    return undefined;
  }
}
