import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlEventStore } from "../../src/threads/store.js";
import { exitOf } from "../support/process.js";
import { testTempDir } from "../support/temp.js";

describe("kill -9 during a burst of appends", () => {
  it("restarts cleanly and loses nothing that was acknowledged, at most a torn last line", async () => {
    const path = join(testTempDir("baton-kill9-"), "events.jsonl");
    const child = spawn(process.execPath, [join(process.cwd(), "test/support/append-burst.mjs"), path], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => (out += d));
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (out.split("\n").length > 2000) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    child.kill("SIGKILL");
    await exitOf(child);
    const acked = out.split("\n").filter((l) => l.startsWith("ev_"));

    const seen = new Set<string>();
    const report = await new JsonlEventStore(path).replay((e) => seen.add(e.id));
    expect(report.skipped.length).toBeLessThanOrEqual(1);
    for (const s of report.skipped) expect(s.reason).toMatch(/torn last line/);
    const lost = acked.filter((id) => !seen.has(id));
    expect(lost).toEqual([]);
    expect(seen.size).toBeGreaterThanOrEqual(acked.length);
  });
});
