// Shared by the packaging tests: temp folders and processes cleaned up after each test, npm, a
// command started until its ready line, and the web chat spoken to as the page does.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import WebSocket from "ws";
import type { ServerEvent } from "../../src/platforms/web/protocol.js";

export const REPO = process.cwd();
export const NPM_FLAGS = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];
const READY_MS = 90_000;
/** Removing an installed prefix or a built copy takes a while on a busy disk. */
export const CLEANUP_MS = 180_000;

const dirs: string[] = [];
const children: ChildProcess[] = [];

/** Kills what the test started (its process groups) and removes its folders. */
export async function cleanUp(): Promise<void> {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

/** A copy of the clone's sources (node_modules linked), to build or pack without touching the clone's dist/. */
export function copyOfClone(
  into: string,
  entries = ["package.json", "package-lock.json", "tsconfig.json", "src", "bin", "scripts", "config.example.yaml", "README.md", "LICENSE", "CHANGELOG.md", "docs"],
): string {
  for (const entry of entries) if (existsSync(join(REPO, entry))) cpSync(join(REPO, entry), join(into, entry), { recursive: true });
  symlinkSync(join(REPO, "node_modules"), join(into, "node_modules"));
  return into;
}

/** PATH with this Node first (the installed `baton` runs `node` through its shebang). */
export function pathWith(...dirsFirst: string[]): string {
  return [...dirsFirst, dirname(process.execPath), "/usr/bin", "/bin"].join(":");
}

export function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const res = spawnSync("npm", args, { cwd, env, encoding: "utf8", timeout: 300_000 });
  if (res.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${res.status}):\n${res.stdout}\n${res.stderr}`);
  return res.stdout + res.stderr;
}

export interface Started {
  child: ChildProcess;
  out: () => string;
  err: () => string;
}

/** Starts a command in its own process group and waits for a stdout line matching `ready`. */
export async function startUntil(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }, ready: RegExp): Promise<Started> {
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
  return { child, out: () => out, err: () => err };
}

/** SIGTERM to the command's process group; resolves with its exit code once the whole group is gone. */
export async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  process.kill(-child.pid!, "SIGTERM");
  const code = await exited;
  // `npm start` exits before the Baton it started has finished writing its data dir.
  await until(() => {
    try {
      process.kill(-child.pid!, 0);
      return false;
    } catch {
      return true;
    }
  }, "the process group to end");
  return code;
}

/** Polls until `probe` returns a value (not undefined/false), or fails naming `what`. */
export async function until<T>(probe: () => T | undefined | false, what: string, ms = READY_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Speaks to the web chat as the page does: token → cookie → WebSocket → hello → a prompt → the agent's answer (its HTML). */
export async function askWebChat(url: string, text: string, conversation = `conv-${Date.now()}`): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0];
  const { host } = new URL(url);
  const socket = new WebSocket(`ws://${host}/ws`, { headers: { cookie } });
  const events: ServerEvent[] = [];
  socket.on("message", (data) => events.push(JSON.parse(String(data)) as ServerEvent));
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  try {
    socket.send(JSON.stringify({ type: "hello", browser: "packaging-test" }));
    socket.send(JSON.stringify({ type: "send", conversation, text }));
    const answer = await until(
      () => events.find((e) => e.type === "message" && e.message.role === "agent" && e.message.html.includes("you said") && e.message.html.includes(text)),
      `an answer to "${text}"`,
    );
    return answer.type === "message" ? answer.message.html : "";
  } finally {
    socket.close();
  }
}
