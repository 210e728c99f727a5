#!/usr/bin/env node
// Records what a real agent CLI writes on its ACP wire (stdout, one JSON-RPC message a line), for
// the differential test of Baton's hand-written ACP wire against the SDK's own
// (test/agents/acp-differential.test.ts). Run as the CLI itself: the sandbox puts this folder first
// on PATH when BATON_RECORD_ACP names a folder, each CLI's name a link to this file. The real CLI
// (the one the suite installed) runs with the same arguments; stdin goes to it untouched, and its
// stdout goes both to the caller and, line by line, to <BATON_RECORD_ACP>/<cli>-<pid>.jsonl.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { basename, join } from "node:path";

const name = basename(process.argv[1]);
const real = join(process.env.BATON_RECORD_ACP_REAL_BIN ?? "", name);
const args = process.argv.slice(2);
// Gemini's, Qwen Code's and OpenCode's names are also their terminal UIs': only an ACP run is recorded.
const acpRun = { gemini: args.includes("--acp"), qwen: args.includes("--acp"), opencode: args[0] === "acp" }[name] ?? true;
if (!acpRun) {
  spawn(real, args, { stdio: "inherit" }).on("exit", (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
} else record();

function record() {
  const log = createWriteStream(join(process.env.BATON_RECORD_ACP ?? ".", `${name}-${process.pid}.jsonl`));
  const child = spawn(real, args, { stdio: ["pipe", "pipe", "inherit"] });
  process.stdin.pipe(child.stdin);
  child.stdin.on("error", () => undefined);
  child.stdout.on("data", (chunk) => {
    log.write(chunk);
    process.stdout.write(chunk);
  });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => log.end(() => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1))));
}
