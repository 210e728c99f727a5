// `node --import ./test/support/record-imports.mjs …` appends every resolved module URL to the file
// named by $BATON_IMPORT_LOG: how tests see which SDKs a process really loaded.
import { register } from "node:module";

register("./import-hooks.mjs", import.meta.url, { data: { file: process.env.BATON_IMPORT_LOG } });
