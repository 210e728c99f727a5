// `node --import ./test/support/record-imports.mjs …` appends every resolved module URL to the file
// named by $BATON_IMPORT_LOG: how tests see which SDKs a process really loaded. Each line the
// process prints goes into the file too, as `stdout: …`, so a test can tell what was loaded before
// a line (such as "Baton ready") from what was loaded after it.
import { appendFileSync } from "node:fs";
import { register } from "node:module";

const file = process.env.BATON_IMPORT_LOG;
register("./import-hooks.mjs", import.meta.url, { data: { file } });
if (file) {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    appendFileSync(
      file,
      String(chunk)
        .split("\n")
        .filter(Boolean)
        .map((line) => `stdout: ${line}\n`)
        .join(""),
    );
    return write(chunk, ...rest);
  };
}
