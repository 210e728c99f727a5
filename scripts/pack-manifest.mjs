// The tarball's package.json without the `prepare` script. `prepare` builds dist/ in a clone; an
// installed tarball already has dist/ and nothing to build it with, yet npm 11 lists the script at
// every install ("install scripts not yet covered by allowScripts") and asks to allow it.
// `prepack` runs `strip` (package.json is read for the tarball after prepack), `postpack` `restore`.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const manifest = join(dirname(fileURLToPath(import.meta.url)), "..", "package.json");
const saved = `${manifest}.before-pack`;

if (process.argv[2] === "strip") {
  // A pack that failed before its postpack left the saved copy: that one is the real manifest.
  if (existsSync(saved)) renameSync(saved, manifest);
  const text = readFileSync(manifest, "utf8");
  writeFileSync(saved, text);
  const pkg = JSON.parse(text);
  delete pkg.scripts.prepare;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (process.argv[2] === "restore") {
  if (existsSync(saved)) renameSync(saved, manifest);
} else {
  console.error("usage: node scripts/pack-manifest.mjs strip|restore");
  process.exit(2);
}
