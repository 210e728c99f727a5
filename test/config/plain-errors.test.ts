// Config mistakes in plain words, on the line of the mistake itself: YAML slips (indentation, a
// missing colon, an unclosed quote or bracket, a tab, a key twice), a value of the wrong kind, a
// key at the wrong level; a person's name where an access list takes accounts; and `config
// validate` with no config file at all, which is valid.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.js";
import { ConfigError } from "../../src/kernel/errors.js";
import { testTempDir } from "../support/temp.js";

function errorOf(yaml: string): string {
  try {
    parseConfigText(yaml, "baton.yaml", {});
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).userMessage;
  }
  throw new Error("config was accepted");
}

describe("access entries", () => {
  it("a person's name (or an id without its platform) in an access list: what to write instead", () => {
    const hint =
      "has no platform: an access list takes a user id with its platform, such as slack:U0ABC or telegram:123456, web, or a platform's group — not a person's name from access.people: list that person's accounts here";
    expect(errorOf("access:\n  people: { ana: [telegram:123] }\n  allow: [telegram:9, ana]\n")).toBe(`baton.yaml:3: access.allow[1]: ana ${hint}`);
    expect(errorOf('access:\n  allow: [telegram:9]\nbindings:\n  - { match: "telegram:*", workspace: ., allow: [bea] }\n')).toBe(`baton.yaml:4: bindings[0].allow[0]: bea ${hint}`);
  });
});

describe("YAML mistakes", () => {
  it("a key indented off the column of its section: the line itself, and the columns that would fit", () => {
    expect(errorOf("agents:\n  default: demo\n workspaces:\n  roots: [/tmp]\n")).toBe(
      "baton.yaml:3: `workspaces:` is indented 1 space: the keys above it are at 2 (`default`) or 0 (`agents`). Line it up with the keys of the section it belongs to (spaces, not tabs).",
    );
  });

  it("a key indented under one that already has a value: its own line, not the one above", () => {
    expect(errorOf("agents:\n  default: demo\n    max_live_hosts: 2\n")).toBe(
      "baton.yaml:3: `max_live_hosts: 2` is indented under `default`, which already has a value on line 2. Indent it as `default` is (2 spaces), or give `default` no value on its own line.",
    );
  });

  it("a missing colon, a tab, a key twice, a list item among keys", () => {
    expect(errorOf("agents:\n  default demo\n  max_live_hosts: 2\n")).toBe("baton.yaml:2: `default demo` has no colon after its key: write `key: value`.");
    expect(errorOf("agents:\n\tdefault: demo\n")).toBe("baton.yaml:2: `default: demo` is indented with a tab: YAML indents with spaces only.");
    expect(errorOf("agents:\n  default: demo\nagents:\n  max_live_hosts: 2\n")).toBe(
      "baton.yaml:3: `agents` appears twice in the same section (first on line 1): keep one, with the settings of both under it.",
    );
    expect(errorOf("agents:\n  default: demo\n  - claude\n")).toMatch(/^baton\.yaml:3: `- claude` is a list item among the keys of a section/);
  });

  it("an unclosed quote or bracket: the line it was opened on, not the end of the file", () => {
    expect(errorOf('platforms:\n  web:\n    listen: "8787\n\nagents:\n  default: demo\n')).toBe('baton.yaml:3: `listen: "8787`: the quote " opened on this line is not closed.');
    expect(errorOf("platforms:\n  web:\n    listen: 8787\n    token: [a\n  telegram:\n")).toBe("baton.yaml:4: `token: [a`: the list opened with [ on this line is not closed with ].");
    expect(errorOf("agents: { default: demo\n")).toBe("baton.yaml:1: `agents: { default: demo`: the map opened with { on this line is not closed with }.");
  });
});

describe("values of the wrong kind, keys at the wrong level", () => {
  it("says what was expected in words and what was written", () => {
    expect(errorOf("agents: demo\n")).toBe('baton.yaml:1: agents: expected a section (keys indented under it), got the text "demo"');
    expect(errorOf("access:\n  allow: telegram:1\n")).toBe('baton.yaml:2: access.allow: expected a list ([a, b], or `- item` lines), got the text "telegram:1"');
  });

  it("a platform's setting one level too high names the section it belongs in, not 'expected record'", () => {
    expect(errorOf("platforms:\n  telegram:\n    token: x\n  mode: polling\n")).toBe(
      'baton.yaml:4: platforms.mode: "mode: polling" sits directly under "platforms", where each key starts a section of its own; if it is a setting of "telegram" (above it), indent it under "telegram"',
    );
  });

  it("a section's key at the top level says which section has it", () => {
    expect(errorOf("max_live_hosts: 3\n")).toBe('baton.yaml:1: max_live_hosts: "max_live_hosts" does not go at the top level; it is a key of agents (indent it under that section)');
  });
});

describe("`baton config validate` with no config file", () => {
  it("says it runs on the defaults and exits 0 (--json too)", () => {
    const empty = testTempDir("baton-noconfig-");
    const env = { ...process.env, HOME: empty, BATON_CONFIG: "" };
    delete (env as Record<string, string | undefined>).BATON_CONFIG;
    const run = (...args: string[]) => spawnSync(process.execPath, [join(process.cwd(), "bin", "baton.js"), "config", "validate", ...args], { cwd: empty, env, encoding: "utf8" });
    const human = run();
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^✓ no config: defaults \(the web chat on 127\.0\.0\.1, the first agent found\)\./);
    const json = run("--json");
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, defaults: true, platforms: ["web"] });
    // A file named but missing is still an error.
    const missing = run(join(empty, "nope.yaml"));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/Cannot read the config file .*nope\.yaml: ENOENT/);
  });
});
