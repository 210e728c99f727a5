// The config's rough edges, smoothed: ${VAR} only required where it is used, a bare port for every
// listen key, --port / BATON_WEB_LISTEN, "did you mean", workspaces that do not exist (a warning),
// config.example.yaml's documented defaults equal to the code's, `config validate --json`, and the
// default workspace when Baton is started in its own folder.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, parseDocument } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfigText, type LoadedConfig } from "../../src/config/load.js";
import { applyStartOverrides } from "../../src/config/overrides.js";
import { configWarnings } from "../../src/config/warnings.js";
import { configSchema, DEFAULT_OPS_LISTEN } from "../../src/config/schema.js";
import { PLATFORM_KINDS } from "../../src/platforms/registry.js";
import { ConfigError } from "../../src/kernel/errors.js";
import { WEB_MIN_EDIT_GAP_MS } from "../../src/platforms/web/index.js";
import { SLACK_DEFAULT_MIN_EDIT_GAP_MS } from "../../src/platforms/slack/adapter.js";

const REPO = process.cwd();
const EXAMPLE = readFileSync(join(REPO, "config.example.yaml"), "utf8");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-friction-")));
  dirs.push(dir);
  return dir;
}
const load = (yaml: string, env: NodeJS.ProcessEnv = {}) => parseConfigText(yaml, "baton.yaml", env);
function errorOf(yaml: string): string {
  try {
    load(yaml);
  } catch (error) {
    return (error as ConfigError).userMessage;
  }
  throw new Error("accepted");
}

describe("environment variables", () => {
  it("are required only inside enabled platform sections", () => {
    const loaded = load("platforms:\n  telegram:\n    enabled: false\n    token: ${TELEGRAM_BOT_TOKEN}\n  web: {}\n");
    expect(loaded.platforms.map((p) => p.name)).toEqual(["web"]);
    expect(errorOf("platforms:\n  telegram:\n    token: ${TELEGRAM_BOT_TOKEN}\n")).toMatch(/platforms\.telegram\.token: environment variable TELEGRAM_BOT_TOKEN is not set/);
    // A disabled section is still checked for typos.
    expect(errorOf("platforms:\n  telegram:\n    enabled: false\n    tokn: ${X}\n")).toMatch(/platforms\.telegram\.tokn: unknown key "tokn" \(did you mean "token"\?\)/);
  });
});

describe("listen keys", () => {
  it("take a bare port everywhere (a YAML number or a string)", () => {
    const loaded = load(
      [
        "handover: { mcp_listen: 0 }",
        "ops: { listen: 9100 }",
        "platforms:",
        "  web: { listen: 8787 }",
        "  slack: { bot_token: xoxb-1, mode: http, signing_secret: s, listen: 3000 }",
        '  telegram: { token: "1:x", mode: webhook, webhook: { url: "https://x.example/h", listen: 8443, secret_token: abc } }',
      ].join("\n"),
    );
    expect(loaded.config.handover.mcp_listen).toBe("0");
    expect(loaded.config.ops.listen).toBe("9100");
    const byName = Object.fromEntries(loaded.platforms.map((p) => [p.name, p.config]));
    expect(byName.web.listen).toBe("8787");
    expect(byName.slack.listen).toBe("3000");
    expect((byName.telegram.webhook as { listen: string }).listen).toBe("8443");
  });

  it("--port and BATON_WEB_LISTEN move the web chat; --port without a web chat is an error", () => {
    const withWeb = (): LoadedConfig => load("platforms:\n  web: { listen: 10.0.0.1:8787 }\n");
    const port = withWeb();
    applyStartOverrides(port, { port: "9000", env: {} });
    expect(port.platforms[0].config.listen).toBe("10.0.0.1:9000");
    const env = withWeb();
    applyStartOverrides(env, { env: { BATON_WEB_LISTEN: "0.0.0.0:8080", BATON_OPS_LISTEN: "0.0.0.0:9999" } });
    expect(env.platforms[0].config.listen).toBe("0.0.0.0:8080");
    expect(env.config.ops.listen).toBe("0.0.0.0:9999");
    const both = withWeb();
    applyStartOverrides(both, { port: "7000", env: { BATON_WEB_LISTEN: "127.0.0.1:8080" } });
    expect(both.platforms[0].config.listen).toBe("127.0.0.1:7000");
    expect(() => applyStartOverrides(withWeb(), { port: "nope", env: {} })).toThrow(ConfigError);
    expect(() => applyStartOverrides(withWeb(), { env: { BATON_WEB_LISTEN: "where?" } })).toThrow(/BATON_WEB_LISTEN: expected host:port or a port/);
    const noWeb = load("platforms:\n  web: { enabled: false }\n");
    expect(() => applyStartOverrides(noWeb, { port: "9000", env: {} })).toThrow(/--port sets the web chat's port, but the web chat is not enabled/);
    expect(applyStartOverrides(load("platforms:\n  web: { enabled: false }\n"), { env: { BATON_WEB_LISTEN: "8080" } })).toEqual([
      "BATON_WEB_LISTEN is set, but the web chat is not enabled in the config; ignored",
    ]);
  });
});

describe("did you mean", () => {
  it("suggests the closest known key, at any depth, and nothing for a key far from all of them", () => {
    expect(errorOf("agents:\n  max_live_host: 3\n")).toMatch(/unknown key "max_live_host" \(did you mean "max_live_hosts"\?\)/);
    expect(errorOf("renderng: {}\n")).toMatch(/unknown key "renderng" \(did you mean "rendering"\?\)/);
    expect(errorOf("agents:\n  profiles:\n    fast: { agent: demo, modle: x }\n")).toMatch(/agents\.profiles\.fast\.modle: unknown key "modle" \(did you mean "model"\?\)/);
    expect(errorOf("platforms:\n  web: { lisen: 1 }\n")).toMatch(/did you mean "listen"/);
    expect(errorOf("zzzzzzzz: 1\n")).toMatch(/unknown key "zzzzzzzz"$/);
  });
});

describe("workspaces that do not exist", () => {
  it("are warnings from `config validate` (exit 0, --json too), never errors", () => {
    const dir = tempDir();
    const config = join(dir, "baton.yaml");
    writeFileSync(config, `workspaces:\n  roots: ["${dir}", "${join(dir, "gone")}"]\n  default: "${join(dir, "also-gone")}"\n  named: { api: "${dir}" }\n`);
    const text = spawnSync(process.execPath, ["bin/baton.js", "config", "validate", config], { encoding: "utf8" });
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`! workspaces.roots[1]: ${join(dir, "gone")} does not exist`);
    expect(text.stdout).toContain(`! workspaces.default: ${join(dir, "also-gone")} does not exist`);
    const json = JSON.parse(spawnSync(process.execPath, ["bin/baton.js", "config", "validate", "--json", config], { encoding: "utf8" }).stdout);
    expect(json).toMatchObject({ ok: true, path: config, platforms: [] });
    expect(json.warnings.map((w: { key: string }) => w.key)).toEqual(["workspaces.roots[1]", "workspaces.default"]);
    const broken = join(dir, "broken.yaml");
    writeFileSync(broken, "ops: { listen: [1] }\n");
    const bad = spawnSync(process.execPath, ["bin/baton.js", "config", "validate", "--json", broken], { encoding: "utf8" });
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, error: expect.stringMatching(/broken\.yaml:1: ops\.listen/) });
  });

  it("config.example.yaml copied as it is loads with no warning and no environment", () => {
    expect(configWarnings(parseConfigText(EXAMPLE, "config.example.yaml", {}))).toEqual([]);
  });
});

/** Scalar and empty-list leaves written in a YAML document, with their paths. */
function leaves(value: unknown, path: string[] = []): Array<[string[], unknown]> {
  if (Array.isArray(value)) return value.length === 0 ? [[path, value]] : [];
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [[path, value]];
}
const at = (obj: unknown, path: string[]) => path.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined), obj);

describe("config.example.yaml documents the code's defaults", () => {
  const example = parseConfigText(EXAMPLE, "config.example.yaml", {});
  const defaults = configSchema.parse({});
  const platformDefaults: Record<string, unknown> = {
    web: PLATFORM_KINDS.web.schema.parse({}),
    telegram: PLATFORM_KINDS.telegram.schema.parse({ token: "x" }),
    slack: PLATFORM_KINDS.slack.schema.parse({ bot_token: "x", app_token: "y" }),
  };
  /** The default the code uses at a path of the file, if it has one. */
  const defaultAt = (path: string[]) => (path[0] === "platforms" ? at(platformDefaults[path[1]], path.slice(2)) : at(defaults, path));
  /** The value the example sets there, as the code reads it (durations in ms, listen keys as strings). */
  const exampleAt = (path: string[]) => (path[0] === "platforms" ? at(example.config.platforms[path[1]], path.slice(2)) : at(example.config, path));
  /** Credentials have no default (the values above stand in for them). */
  const required = new Set(["platforms.telegram.token", "platforms.slack.bot_token", "platforms.slack.app_token"]);
  const examples = (path: string[]) =>
    (path[0] === "access" && path[1] === "allow") ||
    (path[0] === "agents" && (path[1] === "profiles" || path[1] === "custom")) ||
    (path[0] === "platforms" && path[2] === "enabled") ||
    required.has(path.join("."));

  it("every value it sets is the default, unless its comment says it is an example", () => {
    const written = leaves(parse(EXAMPLE));
    const compared = written.filter(([path]) => !examples(path) && defaultAt(path) !== undefined);
    expect(compared.length).toBeGreaterThan(25);
    const wrong = compared.filter(([path]) => JSON.stringify(exampleAt(path)) !== JSON.stringify(defaultAt(path)));
    expect(wrong.map(([path]) => `${path.join(".")}: example ${JSON.stringify(exampleAt(path))}, code ${JSON.stringify(defaultAt(path))}`)).toEqual([]);
  });

  it("so does every commented-out `key: value`, edit gaps included", () => {
    const lines = EXAMPLE.split("\n");
    const effective: Record<string, unknown> = {
      "ops.listen": DEFAULT_OPS_LISTEN,
      "platforms.web.min_edit_gap_ms": WEB_MIN_EDIT_GAP_MS,
      "platforms.slack.min_edit_gap_ms": SLACK_DEFAULT_MIN_EDIT_GAP_MS,
      "platforms.telegram.min_edit_gap_ms": defaults.rendering.min_edit_gap_ms,
    };
    const checked: string[] = [];
    lines.forEach((line, i) => {
      const m = /^(\s*)# ([a-z_]+): ([^\s#][^#]*?)\s*(#.*)?$/.exec(line);
      if (!m) return;
      // Uncomment this one line and see where it lands.
      const doc = parseDocument([...lines.slice(0, i), `${m[1]}${m[2]}: ${m[3]}`, ...lines.slice(i + 1)].join("\n"));
      if (doc.errors.length > 0) return;
      const path = leaves(doc.toJS())
        .map(([p]) => p)
        .find((p) => p[p.length - 1] === m[2] && at(parse(EXAMPLE), p) === undefined);
      if (!path) return;
      const key = path.join(".");
      const want = key in effective ? effective[key] : defaultAt(path);
      if (want === undefined) return;
      checked.push(key);
      const written = typeof want === "number" ? Number(m[3]) : m[3];
      expect(written, `${key} (line ${i + 1})`).toEqual(want);
    });
    expect(checked).toEqual(expect.arrayContaining(["ops.listen", "platforms.web.min_edit_gap_ms", "platforms.telegram.min_edit_gap_ms", "platforms.slack.min_edit_gap_ms", "platforms.slack.listen"]));
  });
});

describe("the default workspace", () => {
  it("is the home directory, said in the start line, when Baton starts with no config in its own folder", async () => {
    const home = tempDir();
    mkdirSync(join(home, "data"));
    const env = { ...process.env, HOME: home, BATON_DATA_DIR: join(home, "data"), BATON_WEB_LISTEN: "127.0.0.1:0", BATON_OPS_LISTEN: "127.0.0.1:0", BATON_CONFIG: "" };
    const child = spawn(process.execPath, ["bin/baton.js", "start"], { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    for (let waited = 0; !out.includes("Baton ready") && waited < 30_000 && child.exitCode === null; waited += 50) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGTERM");
    await exited;
    expect(out).toContain("no config file, using the embedded default");
    expect(out).toContain(`workspace: ${home} (the home directory: Baton's own folder is not a workspace)`);
  });
});
