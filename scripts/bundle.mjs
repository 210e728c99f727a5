// Bundles the compiled CLI (dist/bot/cli.js, from `tsc`) and the packages it imports into
// dist/bundle/, the one CLI that ships (bin/baton.js runs dist/bundle/cli.js). Why: a cold
// `baton start` spent most of its CPU resolving, reading and compiling ~450 separate modules (ESM
// and CommonJS, each CommonJS one also scanned for its exports); a few chunks cut that by about
// 40 %. Dynamic imports stay dynamic (code splitting), so a disabled platform's SDK, the agent SDK
// and the markdown parser still load only when used. The demo agent (dist/agents/demo/main.js) is a
// second entry, dist/bundle/demo-agent.js: an install carries no node_modules for what the bundle
// holds (those packages are dev dependencies), so nothing that runs may import them from tsc's
// output. The web page's script (dist/platforms/web/client/) stays tsc's output. The source map
// beside each chunk names the modules in it (tests read them to see what `baton start` loaded).
import { copyFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";
import { checkExternals, checkSubstitutes, recordingExternal, substitutesPlugin } from "./bundle/substitutes.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** tsc's output to bundle: dist/, or the staging folder scripts/build.mjs gives as the argument. */
const distDir = process.argv[2] ? resolve(process.argv[2]) : join(root, "dist");
const outDir = join(distDir, "bundle");
const require = createRequire(join(root, "package.json"));

/**
 * Left to Node at run time: packages with native addons or WebAssembly found next to their own
 * files, and optional packages that are tried in a try/catch and usually absent.
 */
const EXTERNAL = [/^node:/, "fs-native-extensions", "@matrix-org/matrix-sdk-crypto-wasm", "bufferutil", "utf-8-validate", "zlib-sync"];
/**
 * sql.js (OpenCode's session reader) is Emscripten output that finds its .wasm beside itself through
 * __dirname, which an ES module bundle has not: its two files are copied next to the chunks and the
 * import points there (700 KB, where the package with all its other builds installs 31 MB).
 */
const SQL_JS = "sql.js";
const SQL_JS_FILES = { "sql-wasm.js": "sql-wasm.cjs", "sql-wasm.wasm": "sql-wasm.wasm" };
/**
 * Files the bundle gives importers in place of what Node would. The build fails unless each exports
 * every name its importers use (read from their source: scripts/bundle/substitutes.mjs).
 */
const SUBSTITUTES = [
  // A package whose `main` is a UMD build that requires its own files by computed paths, which a
  // bundler cannot follow: its ES module build instead (the same code).
  { specifier: "jsonc-parser", file: require.resolve("jsonc-parser/lib/esm/main.js") },
  // The part of undici @slack/socket-mode uses (see the file), given to socket-mode only.
  { specifier: "undici", importer: /[\\/]node_modules[\\/]@slack[\\/]socket-mode[\\/]/, file: join(root, "scripts", "bundle", "undici-for-socket-mode.cjs") },
];
/** Warnings that say what is expected here: optional packages absent, and eval in discord.js's own debug helper. */
const EXPECTED_LOGS = new Set(["EVAL", "UNRESOLVED_IMPORT", "CIRCULAR_DEPENDENCY"]);

rmSync(outDir, { recursive: true, force: true });
const substituted = [];
const leftToNode = [];
const externalToNode = recordingExternal(EXTERNAL, leftToNode);
const bundle = await rolldown({
  input: { cli: join(distDir, "bot", "cli.js"), "demo-agent": join(distDir, "agents", "demo", "main.js") },
  platform: "node",
  external: (source, importer, isResolved) => {
    if (source !== SQL_JS) return externalToNode(source, importer, isResolved);
    // Checked like a substitute: the copied file must export what its importer takes from sql.js.
    if (importer && !isResolved) substituted.push({ specifier: SQL_JS, importer, file: require.resolve("sql.js/dist/sql-wasm.js") });
    return true;
  },
  plugins: [substitutesPlugin(SUBSTITUTES, substituted)],
  onLog(level, log, handler) {
    if (!EXPECTED_LOGS.has(log.code ?? "")) handler(level, log);
  },
});
// Whitespace and comments out (a third less for V8 to scan at start); names and code as written,
// so stack traces name the same functions (their positions map back through the .map files).
const MINIFY = { mangle: false, compress: false, codegen: { removeWhitespace: true } };
await bundle.write({ dir: outDir, format: "esm", chunkFileNames: "[name]-[hash].js", sourcemap: true, minify: MINIFY, paths: { [SQL_JS]: "./sql-wasm.cjs" } });
await bundle.close();
const sqlJsDir = dirname(require.resolve("sql.js/dist/sql-wasm.wasm"));
for (const [from, to] of Object.entries(SQL_JS_FILES)) copyFileSync(join(sqlJsDir, from), join(outDir, to));
const problems = [...checkSubstitutes(substituted, root), ...checkExternals(leftToNode, join(outDir, "cli.js"), root)];
if (problems.length > 0) {
  // No bundle rather than one that fails at run time: bin/baton.js says dist/ is missing.
  rmSync(outDir, { recursive: true, force: true });
  console.error(`bundle: ${problems.length} import(s) the bundle would break:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  process.exit(1);
}
// tsc's own dist/bot/cli.js is only the bundle's input: removed so that nothing runs the unbundled CLI.
rmSync(join(distDir, "bot", "cli.js"));
rmSync(join(distDir, "bot", "cli.js.map"), { force: true });
