// `baton doctor`'s warnings: no real agent installed, a chat platform nobody is allowed on, a
// configured workspace that does not exist, a platform out of reach (not blamed on the token) —
// each keeps "All good." away without failing; a rejected token fails.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { closedPort } from "../support/closed-port.js";

const BATON = join(process.cwd(), "bin/baton.js");
let dir: string;
let fake: FakeBotApi;

beforeEach(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-doctor-")));
  mkdirSync(join(dir, "data"), { mode: 0o700 });
  fake = await FakeBotApi.start({ username: "doctor_bot" });
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A PATH with only the system's tools, plus (optionally) a stand-in `opencode` so one real agent is "installed". */
function pathWith(agent: boolean): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  if (agent) {
    writeFileSync(join(bin, "opencode"), "#!/bin/sh\n");
    chmodSync(join(bin, "opencode"), 0o755);
  }
  return `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; out: string }> {
  // Asynchronously: the fake Bot API answers from this process, which must keep running meanwhile.
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.once("exit", (status) => resolve({ status, out }));
  });
}

type Report = { ok: boolean; warnings: number; checks: Array<{ area: string; status: string; message: string }> };

async function doctor(config: string, agent = true): Promise<{ status: number | null; out: string; report: Report }> {
  const path = join(dir, "baton.yaml");
  writeFileSync(path, config);
  const env = { ...process.env, PATH: pathWith(agent) };
  const args = [BATON, "doctor", "--config", path, "--data-dir", join(dir, "data")];
  const [text, json] = await Promise.all([run(args, env), run([...args, "--json"], env)]);
  return { status: text.status, out: text.out, report: JSON.parse(json.out) as Report };
}

const check = (r: Report, area: string) => r.checks.find((c) => c.area === area);

describe("baton doctor", () => {
  it("says All good. with a real agent installed and nothing else amiss", async () => {
    const res = await doctor(`workspaces: { default: "${dir}" }\n`);
    expect(check(res.report, "agent opencode")?.status).toBe("ok");
    expect(check(res.report, "agent claude")?.status).toBe("info");
    expect(res.out).toMatch(/All good\.\n$/);
    expect(res.status).toBe(0);
  });

  it("warns when no real agent is installed (and does not say All good.)", async () => {
    const res = await doctor(`workspaces: { default: "${dir}" }\n`, false);
    expect(check(res.report, "agents")).toMatchObject({ status: "warn", message: expect.stringMatching(/no real agent installed: chats get the bundled demo agent/) });
    expect(res.out).not.toContain("All good.");
    expect(res.out).toMatch(/1 warning: see the lines marked !\./);
    expect(res.status).toBe(0);
  });

  it("warns when a chat platform is enabled with nobody allowed on it", async () => {
    const platform = `platforms:\n  telegram: { token: "${fake.token}", api_root: "${fake.apiRoot}" }\n`;
    const nobody = await doctor(`access: { allow: [slack:U1] }\n${platform}`);
    expect(check(nobody.report, "access telegram")).toMatchObject({
      status: "warn",
      message: expect.stringMatching(/access\.allow and access\.roles name no telegram: user or group.*Add telegram:<user id>/),
    });
    expect(nobody.out).not.toContain("All good.");
    const someone = await doctor(`access: { allow: [telegram:111] }\n${platform}`);
    expect(check(someone.report, "access telegram")).toBeUndefined();
    expect(check(someone.report, "platform telegram")?.status).toBe("ok");
    // A group of the platform's, or an admin by id, is someone too.
    const admins = await doctor(`access: { allow: [slack:U1], roles: { admin: [telegram:admins] } }\n${platform}`);
    expect(check(admins.report, "access telegram")).toBeUndefined();
  });

  it("warns when a configured workspace does not exist", async () => {
    const res = await doctor(`workspaces:\n  roots: ["${dir}"]\n  default: "${join(dir, "nope")}"\n`);
    expect(check(res.report, "workspace")).toMatchObject({
      status: "warn",
      message: `workspaces.default: ${join(dir, "nope")} does not exist (create it, or change the config; a thread there cannot start)`,
    });
    expect(res.status).toBe(0);
  });

  it("warns for an ops listener on a non-loopback address without ops.token (and `baton start` logs the same)", async () => {
    const open = await doctor(`workspaces: { default: "${dir}" }\nops: { listen: "0.0.0.0:0" }\n`);
    expect(check(open.report, "ops")).toMatchObject({
      status: "warn",
      message: expect.stringMatching(/^ops\.listen: 0\.0\.0\.0 is not a loopback address and ops\.token is not set: .*Set ops\.token, or listen on 127\.0\.0\.1/),
    });
    expect(open.out).not.toContain("All good.");
    const guarded = await doctor(`workspaces: { default: "${dir}" }\nops: { listen: "0.0.0.0:0", token: "a-long-enough-ops-token" }\n`);
    expect(check(guarded.report, "ops")).toBeUndefined();
    const loopback = await doctor(`workspaces: { default: "${dir}" }\nops: { listen: "127.0.0.1:0" }\n`);
    expect(check(loopback.report, "ops")).toBeUndefined();
  });

  it("keeps 'cannot reach' (a warning) apart from 'token rejected' (a failure)", async () => {
    const port = await closedPort();
    const unreachable = await doctor(`access: { allow: [telegram:1] }\nplatforms:\n  telegram: { token: "${fake.token}", api_root: "http://127.0.0.1:${port}" }\n`);
    expect(check(unreachable.report, "platform telegram")).toMatchObject({
      status: "warn",
      message: `cannot reach http://127.0.0.1:${port}: ECONNREFUSED — check the network (or api_root); the token was not checked`,
    });
    expect(unreachable.status).toBe(0);
    const rejected = await doctor(`access: { allow: [telegram:1] }\nplatforms:\n  telegram: { token: "123:wrong", api_root: "${fake.apiRoot}" }\n`);
    expect(check(rejected.report, "platform telegram")).toMatchObject({ status: "fail", message: expect.stringMatching(/^token rejected: refused \(401/) });
    expect(rejected.status).toBe(1);
    expect(rejected.out).toContain("Some checks failed.");
  });
});
