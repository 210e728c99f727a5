import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseConfigText, findConfigFile, defaultConfig } from "../../src/config/load.js";
import { ConfigError } from "../../src/kernel/errors.js";
import { testTempDir } from "../support/temp.js";

function errorOf(yaml: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    parseConfigText(yaml, "baton.yaml", env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).userMessage;
  }
  throw new Error("config was accepted");
}

describe("config mistakes name the key path and the line", () => {
  it("a wrong type", () => {
    expect(errorOf("agents:\n  max_live_hosts: many\n")).toMatch(/^baton\.yaml:2: agents\.max_live_hosts: .*number/);
  });
  it("an unknown key (a typo)", () => {
    expect(errorOf("access:\n  allow: []\n  alow: [x]\n")).toBe('baton.yaml:3: access.alow: unknown key "alow" (did you mean "allow"?)');
  });
  it("a missing required platform key", () => {
    expect(errorOf("platforms:\n  telegram:\n    mode: polling\n")).toMatch(/^baton\.yaml:2: platforms\.telegram\.token: /);
  });
  it("an unset environment variable", () => {
    expect(errorOf("platforms:\n  telegram:\n    token: ${TELEGRAM_TOKEN}\n")).toBe(
      "baton.yaml:3: platforms.telegram.token: environment variable TELEGRAM_TOKEN is not set (use ${TELEGRAM_TOKEN:-default} for a default)",
    );
  });
  it("a bad access entry inside a list", () => {
    expect(errorOf("access:\n  allow:\n    - telegram:1\n    - 12345\n")).toMatch(/^baton\.yaml:4: access\.allow\[1\]: /);
  });
  it("an unknown platform kind", () => {
    expect(errorOf("platforms:\n  irc:\n    server: x\n")).toMatch(/^baton\.yaml:2: platforms\.irc: unknown platform/);
  });
  it("a bad duration and broken YAML", () => {
    expect(errorOf("agents:\n  idle_shutdown: soon\n")).toMatch(/^baton\.yaml:2: agents\.idle_shutdown: /);
    expect(errorOf("agents: [\n")).toBe("baton.yaml:1: `agents: [`: the list opened with [ on this line is not closed with ].");
  });
});

describe("config loading", () => {
  it("interpolates ${VAR} and ${VAR:-default}, parses durations, and keeps instances apart", () => {
    const loaded = parseConfigText(
      [
        "agents:",
        "  idle_shutdown: 5m",
        "platforms:",
        "  telegram:",
        "    token: ${TG}",
        "  slack_acme:",
        "    kind: slack",
        "    bot_token: ${SLACK_BOT:-xoxb-default}",
        "    app_token: xapp-1",
        "  web:",
        "    enabled: false",
      ].join("\n"),
      "baton.yaml",
      { TG: "123:abc" },
    );
    expect(loaded.config.agents.idle_shutdown).toBe(300_000);
    expect(loaded.platforms.map((p) => [p.name, p.kind])).toEqual([
      ["telegram", "telegram"],
      ["slack_acme", "slack"],
    ]);
    expect(loaded.platforms[0].config.token).toBe("123:abc");
    expect(loaded.platforms[1].config.bot_token).toBe("xoxb-default");
  });

  it("finds --config, then BATON_CONFIG, then ./baton.yaml", () => {
    const dir = testTempDir("baton-cfg-");
    writeFileSync(join(dir, "baton.yaml"), "{}\n");
    expect(findConfigFile({ flag: "x.yaml", cwd: dir, env: {} })).toBe(join(dir, "x.yaml"));
    expect(findConfigFile({ cwd: dir, env: { BATON_CONFIG: "/etc/b.yaml" } })).toBe("/etc/b.yaml");
    expect(findConfigFile({ cwd: dir, env: {} })).toBe(join(dir, "baton.yaml"));
  });

  it("the embedded default runs the web chat", () => {
    expect(defaultConfig().platforms.map((p) => p.name)).toEqual(["web"]);
  });

  it("config.example.yaml is valid and `baton config validate` says so; a broken file exits 1", () => {
    // Copied as it is, with no environment variable set: the platforms that need tokens are disabled.
    const ok = spawnSync(process.execPath, ["bin/baton.js", "config", "validate", "config.example.yaml"], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    const bad = join(testTempDir("baton-cfg-"), "bad.yaml");
    writeFileSync(bad, "agents:\n  max_live_hosts: -1\n");
    const res = spawnSync(process.execPath, ["bin/baton.js", "config", "validate", bad], { encoding: "utf8" });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain("bad.yaml:2: agents.max_live_hosts");
  });

  it("`config validate` refuses credentials inside a URL that has a key for its secret, naming both keys and never echoing the secret", () => {
    const file = join(testTempDir("baton-cfg-"), "creds.yaml");
    writeFileSync(file, ["voice:", "  transcription:", "    url: http://whisper:hunter2pw@127.0.0.1:8000/v1", ""].join("\n"));
    const res = spawnSync(process.execPath, ["bin/baton.js", "config", "validate", file], { encoding: "utf8" });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/voice\.transcription\.url: has a user name or password inside it .*`api_key`/);
    writeFileSync(file, "platforms:\n  discord:\n    token: abc\n    api_url: https://proxy:s3cretpw@discord.example/api\n");
    const platform = spawnSync(process.execPath, ["bin/baton.js", "config", "validate", file], { encoding: "utf8" });
    expect(platform.status).toBe(1);
    expect(platform.stderr).toMatch(/platforms\.discord\.api_url: has a user name or password inside it .*`token`/);
    expect(res.stderr + res.stdout + platform.stderr + platform.stdout).not.toMatch(/hunter2pw|s3cretpw/);
    // A URL without credentials is fine.
    writeFileSync(file, "voice:\n  transcription:\n    url: http://127.0.0.1:8000/v1\n    api_key: sk-x\n");
    expect(spawnSync(process.execPath, ["bin/baton.js", "config", "validate", file], { encoding: "utf8" }).status).toBe(0);
  });

  it("`baton config schema` prints a JSON Schema that covers the platforms", () => {
    const res = spawnSync(process.execPath, ["bin/baton.js", "config", "schema"], { encoding: "utf8" });
    expect(res.status).toBe(0);
    const schema = JSON.parse(res.stdout);
    expect(schema.properties.agents.properties.max_live_hosts.type).toBe("integer");
    expect(JSON.stringify(schema.properties.platforms)).toContain("secret_token");
  });
});
