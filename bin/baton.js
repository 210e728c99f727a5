#!/usr/bin/env -S node --max-semi-space-size=4
// --max-semi-space-size=4 (MB): a daemon that mostly waits does not need V8's 16 MB young
// generation; it keeps idle memory ~10 MB lower at the cost of a few more, very short, scavenges.
// Runs the compiled CLI. `npm install` builds dist/ (the "prepare" script).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
const entry = new URL("../dist/bot/cli.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error("baton: dist/ is missing. Run `npm install` (or `npm run build`) in the Baton folder first.");
  process.exit(1);
}
await import(entry.href);
