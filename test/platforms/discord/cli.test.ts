// `baton start` and `baton doctor` with Discord configured, as processes against the fake Discord:
// the start line, and a Message Content Intent left off reported by both with the fix.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { FakeDiscord } from "../../fakes/discord/index.js";

const BATON = join(process.cwd(), "bin/baton.js");
/** Two Baton processes per test; slow on a busy 2-core machine. */
const CLI_TIMEOUT_MS = 90_000;
const FIX = "Developer Portal → your application → Bot → Privileged Gateway Intents → Message Content Intent";

interface Run {
  code: number | null;
  out: string;
  err: string;
}

describe("baton start / doctor with Discord", () => {
  let fake: FakeDiscord | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await fake?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    fake = dir = undefined;
  });

  function configFor(discord: FakeDiscord): string {
    dir = mkdtempSync(join(tmpdir(), "baton-discord-cli-"));
    const path = join(dir, "baton.yaml");
    writeFileSync(path, `agents: { default: demo }\nplatforms:\n  discord: { token: "${discord.token}", api_url: "${discord.apiUrl}" }\n`);
    return path;
  }

  function run(args: string[], until?: RegExp): Promise<Run> {
    const child = spawn(process.execPath, [BATON, ...args, "--data-dir", join(dir!, "data")], { stdio: ["ignore", "pipe", "pipe"] });
    const result: Run = { code: null, out: "", err: "" };
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      result.out += d;
      if (until?.test(result.out)) child.kill("SIGTERM");
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (result.err += d));
    return new Promise((resolve) => child.once("exit", (code) => resolve({ ...result, code })));
  }

  test(
    "start says whom it connected as; doctor passes and prints the invite URL",
    async () => {
      fake = await new FakeDiscord().start();
      const config = configFor(fake);
      const started = await run(["start", "--config", config], /Baton ready/);
      expect(started.out).toContain("discord: connected as @Baton in 1 server\n");
      const doctor = await run(["doctor", "--json", "--config", config]);
      const check = (JSON.parse(doctor.out) as { checks: Array<{ area: string; status: string; message: string }> }).checks.find((c) => c.area === "platform discord")!;
      expect(check.status, check.message).toBe("ok");
      expect(check.message).toContain(`invite URL: https://discord.com/oauth2/authorize?client_id=${fake.world.applicationId}&scope=bot%20applications.commands&permissions=309237713920`);
      expect(started.out + started.err + doctor.out).not.toContain(fake.token);
    },
    CLI_TIMEOUT_MS,
  );

  test(
    "the Message Content Intent off: start refuses with the fix, doctor fails with it",
    async () => {
      fake = await new FakeDiscord({ messageContentIntent: false }).start();
      const config = configFor(fake);
      const started = await run(["start", "--config", config]);
      expect(started.code).toBe(1);
      expect(started.err).toContain("Message Content Intent is off");
      expect(started.err).toContain(FIX);
      expect(fake.gateway.closes).toContain(4014);

      const doctor = await run(["doctor", "--config", config]);
      expect(doctor.code).toBe(1);
      expect(doctor.out).toMatch(/✗ platform discord .*Message Content Intent: off/);
      expect(doctor.out).toContain(FIX);
    },
    CLI_TIMEOUT_MS,
  );
});
