// Shared pieces of the handover tests: a terminal-made demo session, the official MCP client over
// stdio (spawning `baton mcp`) and over Streamable HTTP, and reading tool answers.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DemoSessionStore, demoSessionsDir } from "../../src/agents/demo/store.js";
import { readEndpoint, readToken } from "../../src/handoff/discovery.js";
import type { HandoverService } from "../../src/pickup/service.js";
import { afterEach, vi } from "vitest";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";

export const BATON_BIN = join(process.cwd(), "bin", "baton.js");
/** Waiting for a turn of the real demo agent process: generous, since a loaded machine spawns slowly. */
export const AGENT_TURN_MS = 25_000;

const made: string[] = [];

export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Removes every directory tempDir made (call in afterEach). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * The handover tests' Baton (on the test platform, `root` its workspace) and the MCP client a test
 * opened: both stopped after each test, with the folders tempDir made and any mocks.
 */
export function handoverTestBaton() {
  const t = {
    baton: undefined as TestBaton | undefined,
    client: undefined as Client | undefined,
    async start(root: string, dataDir?: string): Promise<TestPlatform> {
      const platform = new TestPlatform();
      t.baton = await startTestBaton({ adapters: [platform], dataDir, config: { workspaces: { roots: [root], default: root } } });
      return platform;
    },
  };
  afterEach(async () => {
    await t.client?.close();
    await t.baton?.stop({ cleanup: true });
    removeTempDirs();
    t.baton = t.client = undefined;
    vi.restoreAllMocks();
  });
  return t;
}

/** A demo-agent session as a terminal would have left it: its prompts are in the agent's store. */
export function terminalDemoSession(dataDir: string, cwd: string, prompts: string[], id = crypto.randomUUID()): string {
  const store = new DemoSessionStore(demoSessionsDir(dataDir));
  store.create(id, cwd);
  for (const text of prompts) {
    store.append(id, { type: "prompt", text, at: new Date().toISOString() });
    store.append(id, { type: "reply", text: `(reply to ${text})`, at: new Date().toISOString() });
  }
  return id;
}

/** The official MCP client, talking to `baton mcp` on stdio as an agent CLI would. */
export async function stdioClient(dataDir: string, options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Client> {
  const client = new Client({ name: "handover-test", version: "1" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BATON_BIN, "mcp"],
    env: { ...getDefaultEnvironment(), BATON_DATA_DIR: dataDir, ...options.env },
    cwd: options.cwd,
    stderr: "pipe",
  });
  await client.connect(transport);
  return client;
}

/** The official MCP client on the daemon's Streamable HTTP endpoint; `token: null` sends none. */
export async function httpClient(dataDir: string, token: string | null = readToken(dataDir)!): Promise<Client> {
  const endpoint = readEndpoint(dataDir);
  if (!endpoint) throw new Error("no mcp.json in the data dir");
  const client = new Client({ name: "handover-test", version: "1" });
  const headers: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers } }));
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; data: Record<string, unknown>; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  return { text, data: (result.structuredContent ?? {}) as Record<string, unknown>, isError: result.isError === true };
}

export function serviceOf(baton: TestBaton): HandoverService {
  return baton.daemon.core.handover as HandoverService;
}

export function codeIn(text: string): string {
  const m = /\/pickup ([A-Z2-9]{4})\b/.exec(text);
  if (!m) throw new Error(`no /pickup line in: ${text}`);
  return m[1];
}

/** The audit events of the thread registry's event log. */
export function auditEvents(dataDir: string): Array<Record<string, string>> {
  return readFileSync(join(dataDir, "threads", "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "audit");
}
