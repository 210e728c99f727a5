#!/usr/bin/env -S node --max-semi-space-size=2 --v8-pool-size=1 --heap-growing-percent=30
// V8 flags for a daemon that mostly waits, each measured on idle RSS with web + Telegram + Slack:
// --max-semi-space-size=2 (MB): V8's young generation defaults to 16 MB. At rest the size makes no
//   difference once V8's memory reducer has run, some 20 s after start (about 80 MB with 2, 8 or
//   16 MB; judged on the first seconds, before it, 16 MB once looked like 98 MB). While answers
//   stream, a small one means many short scavenges: with 8 MB there were a quarter as many but each
//   took three times as long (median 2 ms), slow inbound messages were no fewer, and a 50 MB turn
//   peaked 17 MB higher.
// --v8-pool-size=1: one V8 worker thread instead of four. Each thread holds its own malloc arena;
//   four of them kept 10-15 MB more resident on a 2-core machine, where they mostly waited anyway.
// --heap-growing-percent=30: after each major collection V8 lets the old generation grow to 1.3 ×
//   what survived (by default up to several times that on a small heap). A huge answer streams
//   short-lived strings the 2 MB young generation promotes; with the default growth a 100 MB turn
//   in the web chat swung between +15 and +78 MB of RSS (heap peaks up to 84 MB of which ~28 live),
//   and the garbage stayed until the next collection, maybe long after. With 30 the same turn rose
//   +15 to +19 MB in eight runs, a Matrix room's 100 MB turn +25 MB instead of +122 MB.
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
