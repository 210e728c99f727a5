// Baton installed as a user would, outside its clone: `npm pack` (its prepack builds dist/) then
// `npm install -g` into an empty prefix, and `npm ci --omit=dev` on a built tree (no TypeScript).
// Both need the npm registry or its cache for the dependencies.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import WebSocket from "ws";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ServerEvent } from "../../src/platforms/web/protocol.js";

const REPO = process.cwd();
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const NPM_FLAGS = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];
const READY_MS = 60_000;

const dirs: string[] = [];
const children: ChildProcess[] = [];
/** Removing an installed prefix (a few hundred packages) takes a while on a busy disk. */
const CLEANUP_MS = 180_000;
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}, CLEANUP_MS);

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

/** PATH with this Node first (the installed `baton` runs `node` through its shebang). */
function pathWith(...dirsFirst: string[]): string {
  return [...dirsFirst, dirname(process.execPath), "/usr/bin", "/bin"].join(":");
}

function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const res = spawnSync("npm", args, { cwd, env, encoding: "utf8", timeout: 300_000 });
  if (res.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${res.status}):\n${res.stdout}\n${res.stderr}`);
  return res.stdout + res.stderr;
}

/** Starts a command in its own process group and waits for a stdout line matching `ready`. */
async function startUntil(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }, ready: RegExp): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const deadline = Date.now() + READY_MS;
  while (!ready.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${command} ${args.join(" ")}: no ${ready}:\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, out: () => out };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  process.kill(-child.pid!, "SIGTERM");
  return exited;
}

/** Speaks to the web chat as the page does: token → cookie → WebSocket → hello → a prompt → the agent's answer. */
async function askWebChat(url: string, text: string): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0];
  const { host } = new URL(url);
  const socket = new WebSocket(`ws://${host}/ws`, { headers: { cookie } });
  const events: ServerEvent[] = [];
  socket.on("message", (data) => events.push(JSON.parse(String(data)) as ServerEvent));
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  try {
    socket.send(JSON.stringify({ type: "hello", browser: "install-test" }));
    socket.send(JSON.stringify({ type: "send", conversation: "install-conv", text }));
    for (let waited = 0; waited < READY_MS; waited += 50) {
      const answer = events.find((e) => e.type === "message" && e.message.role === "agent" && e.message.html.includes("you said"));
      if (answer?.type === "message") return answer.message.html;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no answer; events: ${JSON.stringify(events.map((e) => e.type))}`);
  } finally {
    socket.close();
  }
}

function writeConfig(dir: string): string {
  const path = join(dir, "baton.yaml");
  writeFileSync(path, `agents: { default: demo }\nops: { listen: 127.0.0.1:0 }\nworkspaces: { roots: ["${dir}"], default: "${dir}" }\nplatforms:\n  web: { listen: 0 }\n`);
  return path;
}

describe("installing Baton outside its clone", { timeout: 600_000 }, () => {
  it("a packed tarball installed into an empty prefix runs --version, start (the web chat answers) and mcp", async () => {
    const work = tempDir("baton-pack-");
    // npm pack runs prepack (a clean build of dist/): in a copy, so the clone the other tests run from keeps its dist/.
    const pkg = join(work, "pkg");
    mkdirSync(pkg);
    for (const entry of ["package.json", "package-lock.json", "tsconfig.json", "src", "bin", "scripts", "config.example.yaml", "README.md", "docs"]) cpSync(join(REPO, entry), join(pkg, entry), { recursive: true });
    symlinkSync(join(REPO, "node_modules"), join(pkg, "node_modules"));
    npm(["pack", "--pack-destination", work, ...NPM_FLAGS], pkg);
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBe(`baton-agents-${VERSION}.tgz`);

    const prefix = join(work, "prefix");
    npm(["install", "-g", "--prefix", prefix, join(work, tarball!), ...NPM_FLAGS], work);
    const installed = join(prefix, "lib", "node_modules", "baton-agents");
    expect(existsSync(join(installed, "dist", "bundle", "cli.js"))).toBe(true);
    expect(existsSync(join(installed, "src"))).toBe(false);
    expect(existsSync(join(installed, "node_modules", "typescript"))).toBe(false);

    const outside = join(work, "elsewhere");
    mkdirSync(outside);
    const env = { ...process.env, PATH: pathWith(join(prefix, "bin")), HOME: work };
    const version = spawnSync("baton", ["--version"], { cwd: outside, env, encoding: "utf8" });
    expect(version.stdout.trim()).toBe(VERSION);

    const data = join(work, "data");
    const config = writeConfig(outside);
    const daemon = await startUntil("baton", ["start", "--config", config, "--data-dir", data], { cwd: outside, env }, /Baton ready/);
    const url = /^Web chat: (http:\S+)$/m.exec(daemon.out())![1];
    expect(await askWebChat(url, "hello from an installed baton")).toMatch(/you said (&quot;|")hello from an installed baton(&quot;|")/);

    const client = new Client({ name: "install-test", version: "1" });
    await client.connect(new StdioClientTransport({ command: "baton", args: ["--data-dir", data, "mcp"], cwd: outside, env: { ...getDefaultEnvironment(), PATH: env.PATH }, stderr: "pipe" }));
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["get_session_id", "prepare_handover"]));
      const prepared = (await client.callTool({ name: "prepare_handover", arguments: { cwd: outside, agent_kind: "demo" } })) as { content: Array<{ type: string; text?: string }> };
      expect(prepared.content.map((c) => c.text).join("\n")).toMatch(/\/pickup [A-Z2-9]{4}/);
    } finally {
      await client.close();
    }
    expect(await stop(daemon.child)).toBe(0);
  });

  it("`npm ci --omit=dev`, then `npm start`, on a built tree", async () => {
    const tree = tempDir("baton-prod-");
    for (const entry of ["package.json", "package-lock.json", "bin", "dist", "scripts", "config.example.yaml"]) cpSync(join(REPO, entry), join(tree, entry), { recursive: true });
    const env = { ...process.env, PATH: pathWith() };
    const installLog = npm(["ci", "--omit=dev", ...NPM_FLAGS], tree, env);
    expect(installLog).toContain("TypeScript is not installed; using the dist/ already built");
    expect(existsSync(join(tree, "node_modules", "typescript"))).toBe(false);

    const config = writeConfig(tree);
    const daemon = await startUntil("npm", ["start", "--silent"], { cwd: tree, env: { ...env, BATON_CONFIG: config, BATON_DATA_DIR: join(tree, "data") } }, /Baton ready/);
    expect(daemon.out()).toMatch(/^Web chat: http:\/\/127\.0\.0\.1:\d+\/\?token=/m);
    await stop(daemon.child);
  });
});
