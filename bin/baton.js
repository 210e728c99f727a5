#!/usr/bin/env -S node --max-semi-space-size=8 --v8-pool-size=1
// V8 flags for a daemon that mostly waits, each measured on idle RSS with web + Telegram + Slack:
// --max-semi-space-size=8 (MB): V8's young generation defaults to 16 MB. A young generation can
//   only grow to this; at rest V8's memory reducer gives it back (idle RSS about 80 MB some 20 s
//   after start, as with 2 MB). While answers stream the garbage is mostly the markdown parser's:
//   with 2 MB, 57 scavenges a second (4 % of the time, the main cause of slow inbound messages);
//   with 8 MB, 15. (Judged on the first seconds after start, before the reducer runs, 16 MB once
//   looked like 98 MB at rest; every size settles near 80 MB.) A larger one only adds to the peak
//   while answers stream (two semi-spaces of it).
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
// Node >= 22.1 keeps V8's compiled code for the chunks in a disk cache (the OS temp dir) for the next
// start; Node 20 has no module compile cache, and there this does nothing.
module.enableCompileCache?.();
await import(entry.href);
