import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { exitOf } from "./process.js";

describe("exitOf", () => {
  it("resolves for a child that exited before anyone asked", async () => {
    const child = spawn(process.execPath, ["-e", "process.exit(3)"], { stdio: "ignore" });
    await new Promise((r) => child.once("exit", r));
    const hung = new Promise((r) => setTimeout(() => r("hung"), 2_000).unref());
    expect(await Promise.race([exitOf(child), hung])).toBe(3);
  });
});
