// The build's check of what the bundle substitutes (scripts/bundle/substitutes.mjs, run by
// scripts/bundle.mjs): each file given to an importer in place of a package exports every name the
// importer uses, as read from the importer's source; each external resolves from the bundle to the
// file it would resolve to from its importer. Shown failing on the undici subset that lacked `ping`
// (which closed every Slack Socket Mode connection ~1.7 s after it opened).
import { readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { rolldown } from "rolldown";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { checkExternals, checkSubstitutes, namesUsed, recordingExternal, substitutesPlugin } from "../../scripts/bundle/substitutes.mjs";
import { testTempDir } from "../support/temp.js";

interface Use {
  specifier: string;
  importer: string;
  file: string;
}
const ROOT = process.cwd();
const require = createRequire(join(ROOT, "package.json"));
const SOCKET_MODE_DIR = dirname(require.resolve("@slack/socket-mode"));
const SUBSET_NOW = join(ROOT, "scripts/bundle/undici-for-socket-mode.cjs");
const SUBSET_WITHOUT_PING = join(ROOT, "test/fixtures/bundle/undici-without-ping.cjs");
const SOCKET_MODE = /[\\/]node_modules[\\/]@slack[\\/]socket-mode[\\/]/;

/** Bundles @slack/socket-mode in memory with `subset` given for undici, as scripts/bundle.mjs does; returns the check's findings. */
async function bundleSocketMode(subset: string): Promise<{ uses: Use[]; problems: string[] }> {
  const dir = testTempDir("baton-bundle-check-");
  const entry = join(dir, "entry.mjs");
  writeFileSync(entry, `import { SocketModeClient } from ${JSON.stringify(require.resolve("@slack/socket-mode"))};\nconsole.log(SocketModeClient);\n`);
  const uses: Use[] = [];
  const bundle = await rolldown({ input: entry, platform: "node", plugins: [substitutesPlugin([{ specifier: "undici", importer: SOCKET_MODE, file: subset }], uses)], onLog: () => {} });
  await bundle.generate({ format: "esm" });
  await bundle.close();
  return { uses, problems: checkSubstitutes(uses, ROOT) };
}

describe("the bundle's substitute check", () => {
  it("fails on the undici subset without `ping`, naming the importer and the name", async () => {
    const { uses, problems } = await bundleSocketMode(SUBSET_WITHOUT_PING);
    // Both socket-mode files that require undici were given the subset, and both were read.
    expect(uses.map((u) => u.importer.slice(SOCKET_MODE_DIR.length + 1)).sort()).toEqual(["SlackWebSocket.js", "SocketModeClient.js"]);
    expect(problems).toEqual([
      'node_modules/@slack/socket-mode/dist/src/SlackWebSocket.js imports "undici", which the bundle gives it as test/fixtures/bundle/undici-without-ping.cjs: that file does not export `ping`, which the importer uses.',
    ]);
  }, 60_000);

  it("passes on the subset the bundle ships", async () => {
    const { uses, problems } = await bundleSocketMode(SUBSET_NOW);
    expect(uses).toHaveLength(2);
    expect(problems).toEqual([]);
  }, 60_000);

  it("reads the names socket-mode takes from undici out of its source", () => {
    const file = join(SOCKET_MODE_DIR, "SlackWebSocket.js");
    const { names, unread } = namesUsed(readFileSync(file, "utf8"), "undici", file);
    expect([...names].sort()).toEqual(["Agent", "CloseEvent", "ErrorEvent", "MessageEvent", "WebSocket", "buildConnector", "ping"]);
    expect(unread).toEqual([]);
  });

  it("reads CommonJS and ES module imports, and refuses to guess at a use it cannot read", () => {
    const cjs = `"use strict";\nconst x_1 = __importStar(require("x"));\nconst { a, b: renamed } = require("x");\nconst c = require("x").c;\n(0, x_1.d)(x_1.e.f);\nconst obj = { x_1: 1 }; other.x_1 = 2;\n`;
    expect(namesUsed(cjs, "x")).toEqual({ names: new Set(["a", "b", "c", "d", "e"]), unread: [] });
    const esm = `import def, { g, h as hh } from "x";\nimport * as ns from "x";\nexport { i } from "x";\nns.j();\nconst { k } = await import("x");\n`;
    expect(namesUsed(esm, "x")).toEqual({ names: new Set(["default", "g", "h", "i", "j", "k"]), unread: [] });
    const whole = `const x_1 = require("x");\nuse(x_1);\nf(await import("x"));\nexport * from "x";\n`;
    expect(namesUsed(whole, "x").unread).toEqual(["line 2: `x_1` used whole", 'line 3: `f(await import("x"))`', "line 4: re-exports all of it"]);
    // A mention in a comment or a string is not an import.
    expect(namesUsed(`// require("x").nope\nconst s = 'require("x").nope';\n`, "x")).toEqual({ names: new Set(), unread: [] });
  });

  it("checks the ES module build given for jsonc-parser against what Baton imports from it", () => {
    // Baton's one importer of jsonc-parser, wherever it is (tsc's output of src/).
    const importers = readdirSync(join(ROOT, "dist"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".js") && !e.parentPath.includes("/dist/bundle"))
      .map((e) => join(e.parentPath, e.name))
      .filter((path) => /from "jsonc-parser"/.test(readFileSync(path, "utf8")));
    expect(importers).toHaveLength(1);
    const importer = importers[0];
    const shown = relative(ROOT, importer).replace(/[./]/g, "\\$&");
    const file = require.resolve("jsonc-parser/lib/esm/main.js");
    expect(checkSubstitutes([{ specifier: "jsonc-parser", importer, file }], ROOT)).toEqual([]);
    const dir = testTempDir("baton-bundle-check-");
    const lacking = join(dir, "jsonc.mjs");
    writeFileSync(lacking, "export const parse = () => {};\nexport function modify() {}\nexport { parse as other };\n");
    expect(checkSubstitutes([{ specifier: "jsonc-parser", importer, file: lacking }], ROOT)).toEqual([
      expect.stringMatching(
        new RegExp(`^${shown} imports "jsonc-parser", which the bundle gives it as .*jsonc\\.mjs: that file does not export \`applyEdits\`, \`printParseErrorCode\`, which the importer uses\\.$`),
      ),
    ]);
  });

  it("checks sql.js, given as the copy of its sql-wasm.js beside the chunks, against what Baton takes from it", () => {
    const importer = join(ROOT, "dist/agents/stores/sqlite.js");
    expect(checkSubstitutes([{ specifier: "sql.js", importer, file: require.resolve("sql.js/dist/sql-wasm.js") }], ROOT)).toEqual([]);
    expect([...namesUsed(readFileSync(importer, "utf8"), "sql.js", importer).names]).toEqual(["default"]);
  });

  it("fails an external that resolves from the bundle to another copy than from its importer", () => {
    const bundleFile = join(ROOT, "dist/bundle/cli.js");
    // discord.js has its own undici (6.x) under its folder; from dist/bundle/ Node would find undici 7.
    const discordUtil = realpathSync(join(ROOT, "node_modules/discord.js/src/util/Util.js"));
    expect(checkExternals([{ specifier: "undici", importer: discordUtil }], bundleFile, ROOT)).toEqual([
      expect.stringMatching(
        /^node_modules\/discord\.js\/src\/util\/Util\.js imports "undici", left to Node at run time: from the bundle that is .*node_modules\/undici\/index\.js, but from the importer .*node_modules\/discord\.js\/node_modules\/undici\/index\.js\.$/,
      ),
    ]);
    // The externals the bundle has: the same file from both places, or absent from both (optional).
    const wasm = join(dirname(require.resolve("matrix-js-sdk")), "rust-crypto/index.js");
    const ws = join(dirname(require.resolve("ws")), "lib/buffer-util.js");
    expect(
      checkExternals(
        [
          { specifier: "@matrix-org/matrix-sdk-crypto-wasm", importer: wasm },
          { specifier: "bufferutil", importer: ws },
        ],
        bundleFile,
        ROOT,
      ),
    ).toEqual([]);
  });

  it("records only bare packages left to Node, with their importer", () => {
    const uses: Array<{ specifier: string; importer: string }> = [];
    const external = recordingExternal([/^node:/, "sql.js"], uses);
    expect([external("node:fs", "/a.js", false), external("sql.js", "/b.js", false), external("sql.js", "/b.js", true), external("other", "/c.js", false)]).toEqual([true, true, true, false]);
    expect(uses).toEqual([{ specifier: "sql.js", importer: "/b.js" }]);
  });
});
