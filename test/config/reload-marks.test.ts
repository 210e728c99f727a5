// What a reload does with each config key is read from the schema's own marks: every key is
// marked live or restart (an unmarked one fails here, and at load), and the plan follows them.
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { live, reloadKeys, restart } from "../../src/config/reload-marks.js";
import { CONFIG_RELOAD_KEYS, configJsonSchema } from "../../src/config/schema.js";
import { parseConfigText } from "../../src/config/load.js";
import { planReload } from "../../src/bot/reload.js";

describe("reload marks", () => {
  it("cover every key of the config, bindings, schedules, time_zone and voice live", () => {
    const topLevel = Object.keys((configJsonSchema() as { properties: Record<string, unknown> }).properties);
    const marked = new Set(CONFIG_RELOAD_KEYS.map((k) => k.path[0]));
    expect(topLevel.filter((key) => !marked.has(key))).toEqual([]);
    const mark = (path: string) => CONFIG_RELOAD_KEYS.find((k) => k.path.join(".") === path)?.mark;
    for (const key of ["bindings", "schedules", "time_zone", "voice", "access", "agents", "log.level"]) expect(mark(key), key).toBe("live");
    for (const key of ["ops", "store", "handover", "log.format", "platforms"]) expect(mark(key), key).toBe("restart");
  });

  it("refuse a schema with a key marked neither way, naming it", () => {
    const schema = z.object({ a: live(z.string()), nested: z.object({ b: restart(z.number()), c: z.boolean() }).default({ b: 1, c: true }), d: z.string().optional() });
    expect(() => reloadKeys(schema)).toThrow("config keys marked neither live(…) nor restart(…) for reload: nested.c, d");
  });
});

describe("planReload", () => {
  const load = (yaml: string) => parseConfigText(yaml, "baton.yaml");

  it("applies live keys, names the rest, and keeps their running values", () => {
    const before = load("log: { level: info, format: json }\n");
    const after = load(
      `${[
        "log: { level: debug, format: pretty }",
        'bindings: [{ match: "test:*", workspace: "/tmp" }]',
        'schedules: [{ route: "test:a", cron: "0 9 * * *", prompt: "hi" }]',
        "time_zone: UTC",
        "voice: { transcription: { url: http://127.0.0.1:9000/v1 } }",
        "ops: { listen: 127.0.0.1:9999 }",
      ].join("\n")}\n`,
    );
    const plan = planReload(before, after);
    expect(plan.applied).toEqual(["log.level", "bindings", "schedules", "time_zone", "voice"]);
    expect(plan.restartNeeded).toEqual(["log.format", "ops"]);
    expect(plan.running.config.log).toEqual({ level: "debug", format: "json" });
    expect(plan.running.config.ops).toEqual(before.config.ops);
    expect(plan.running.config.bindings).toEqual(after.config.bindings);
    // The running config is not changed in place.
    expect(before.config.log.level).toBe("info");
  });
});
