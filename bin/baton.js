#!/usr/bin/env -S node --max-semi-space-size=2 --v8-pool-size=1
// V8 flags for a daemon that mostly waits, each measured on idle RSS with web + Telegram + Slack:
// --max-semi-space-size=2 (MB): V8's young generation defaults to 16 MB. At rest the size makes no
//   difference once V8's memory reducer has run, some 20 s after start (about 80 MB with 2, 8 or
//   16 MB; judged on the first seconds, before it, 16 MB once looked like 98 MB). While answers
//   stream, a small one means many short scavenges: with 8 MB there were a quarter as many but each
//   took three times as long (median 2 ms), slow inbound messages were no fewer, and a 50 MB turn
//   peaked 17 MB higher.
// --v8-pool-size=1: one V8 worker thread instead of four. Each thread holds its own malloc arena;
//   four of them kept 10-15 MB more resident on a 2-core machine, where they mostly waited anyway.
// Runs the compiled CLI, bundled into a few chunks (scripts/bundle.mjs): loading ~450 separate
// modules was most of a cold start. `npm install` builds dist/ (the "prepare" script).
import { existsSync } from "node:fs";
import module from "node:module";
import { fileURLToPath } from "node:url";
const entry = new URL("../dist/bundle/cli.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error("baton: dist/ is missing. Run `npm install` (or `npm run build`) in the Baton folder first.");
  process.exit(1);
}
// Node >= 25 defines a global localStorage whose getter warns on stderr when no --localstorage-file
// is given, and libraries probe for it; Baton keeps its state in the data dir, never in web storage,
// so the global goes before anything can touch it (deleting does not call the getter).
if (Object.getOwnPropertyDescriptor(globalThis, "localStorage")?.get) delete globalThis.localStorage;
// Node >= 22.1 keeps V8's compiled code for the chunks in a disk cache (the OS temp dir) for the next
// start; Node 20 has no module compile cache, and there this does nothing.
module.enableCompileCache?.();
await import(entry.href);
