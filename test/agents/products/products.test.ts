// Every agent product in the one list runs the product contract (contract.ts), over a store
// written in its format and the settings files its users already have.
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PRODUCTS } from "../../../src/agents/products/index.js";
import * as jsonl from "../../fakes/stores/jsonl-stores.js";
import * as other from "../../fakes/stores/other-stores.js";
import { runProductContract, type ProductFixtures } from "./contract.js";

/** `claude mcp add|remove -s user <name>` as Claude Code does it: the user's ~/.claude.json, refusing a name it has. */
const FAKE_CLAUDE = `
const fs = require("node:fs"), path = require("node:path");
const file = path.join(process.env.HOME, ".claude.json");
const doc = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
const [, , cmd, , scope, name, , command, ...args] = process.argv;
doc.mcpServers ??= {};
if (cmd === "remove") { if (!doc.mcpServers[name]) { console.error("No MCP server found"); process.exit(1); } delete doc.mcpServers[name]; }
else if (cmd === "add") { if (doc.mcpServers[name]) { console.error("MCP server " + name + " already exists in " + scope + " config"); process.exit(1); } doc.mcpServers[name] = { type: "stdio", command, args, env: {} }; }
fs.writeFileSync(file, JSON.stringify(doc, null, 2));
`;

const FIXTURES: Record<string, ProductFixtures> = {
  claude: {
    store: jsonl.claudeFixture,
    settings: { ".claude.json": JSON.stringify({ numStartups: 42, mcpServers: { github: { type: "stdio", command: "gh-mcp", args: [] } }, projects: { "/work": { allowedTools: [] } } }, null, 2) },
    keeps: ['"numStartups": 42', '"github"'],
    clis: { claude: FAKE_CLAUDE },
  },
  codex: {
    store: jsonl.codexFixture,
    settings: {
      ".codex/config.toml": ["# my codex settings", 'model = "o3" # the good one', "", "[mcp_servers.other]", 'command = "x"', 'args = ["--a"]', "", "[profiles.fast]", 'model = "mini"', ""].join(
        "\n",
      ),
    },
    keeps: ["# my codex settings", 'model = "o3" # the good one', "[mcp_servers.other]", "[profiles.fast]"],
  },
  gemini: {
    store: jsonl.geminiFixture,
    settings: { ".gemini/settings.json": '{\n  // my theme\n  "theme": "Dark",\n  "mcpServers": {\n    "other": { "command": "x" }, // keep me\n  },\n}\n' },
    keeps: ["// my theme", '"theme": "Dark"', "// keep me"],
  },
  opencode: { store: other.opencodeFixture },
  cline: { store: other.clineFixture },
  pi: { store: jsonl.piFixture },
  prime: { store: jsonl.primeFixture },
  droid: { store: jsonl.droidFixture },
  copilot: { store: jsonl.copilotFixture },
  hermes: { store: other.hermesFixture },
  dsh: { store: other.dshFixture },
  fx: { store: other.fxFixture },
  grok: { store: other.grokFixture },
  openclaw: { store: jsonl.openclawFixture },
  cursor: { store: jsonl.cursorFixture },
  qwen: { store: jsonl.qwenFixture },
  demo: { store: jsonl.demoFixture },
};

describe("the list of products", () => {
  it("names each product once, by its id or an alias", () => {
    const names = PRODUCTS.flatMap((p) => [p.id, ...(p.aliases ?? [])]);
    expect(names.length).toBe(new Set(names).size);
  });

  it("holds every product folder (kit/ is shared, terminal-only/ a sub-list), and nothing else", () => {
    const dir = path.resolve(import.meta.dirname, "../../../src/agents/products");
    const folders = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !["kit", "terminal-only"].includes(e.name))
      .map((e) => e.name);
    const inFolders = PRODUCTS.filter((p) => folders.includes(p.id)).map((p) => p.id);
    expect(inFolders.sort()).toEqual(folders.sort());
  });
});

for (const product of PRODUCTS) {
  describe(`${product.id} (${product.label})`, () => runProductContract(product, FIXTURES[product.id] ?? {}));
}
