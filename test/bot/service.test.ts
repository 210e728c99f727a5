// Running Baton as a service: the systemd unit `baton service install` writes (checked with
// `systemd-analyze verify` where it is installed), install/uninstall against a recording systemctl,
// and the container recipe checked statically (no Docker engine here): compose parsed, the
// Dockerfile's shape read instruction by instruction.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { renderUnit, systemdWord } from "../../src/bot/service-unit.js";
import { accountNamed, planUnit, runServiceInstall, runServiceUninstall, verifyUnitFile } from "../../src/bot/cli-service.js";

const REPO = process.cwd();
const BATON = join(REPO, "bin", "baton.js");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-service-")));
  dirs.push(dir);
  return dir;
}

/** A HOME with a config, and a PATH whose systemctl only records what it was asked. */
function sandbox(): { home: string; env: NodeJS.ProcessEnv; calls: () => string[]; config: string } {
  const home = tempDir();
  const bin = join(home, "bin");
  mkdirSync(bin);
  const log = join(home, "systemctl.log");
  writeFileSync(join(bin, "systemctl"), `#!/bin/sh\necho "$*" >> ${log}\n`);
  chmodSync(join(bin, "systemctl"), 0o755);
  const config = join(home, "baton.yaml");
  writeFileSync(config, "agents: { default: demo }\nshutdown_grace: 60s\n");
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` };
  return { home, env, config, calls: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []) };
}

describe("baton service (systemd)", () => {
  it("install --print: a unit with restart on failure, the config and data dir, a drain-friendly stop, and hardening; systemd-analyze verify accepts it", () => {
    const { env, config, home } = sandbox();
    for (const scope of ["--user", "--system"]) {
      const out = execFileSync(process.execPath, [BATON, "service", "install", scope, "--print", "--config", config, "--data-dir", join(home, "data")], { env, encoding: "utf8" });
      expect(out).toContain(`ExecStart=${BATON} start --config ${config} --data-dir ${join(home, "data")}`);
      expect(out).toContain("ExecReload=/bin/kill -HUP $MAINPID");
      expect(out).toContain("Restart=on-failure");
      expect(out).toContain("KillMode=mixed");
      expect(out).toContain("TimeoutStopSec=75s"); // shutdown_grace 60 s + time for the agents to stop
      expect(out).toContain(`Environment=PATH=${env.PATH}`);
      expect(out).toContain("NoNewPrivileges=yes");
      expect(out).not.toMatch(/ProtectHome|PrivateUsers|PrivateTmp|MemoryDenyWriteExecute|RestrictNamespaces/); // agents need these
      if (scope === "--system") expect(out).toMatch(/^User=\S+$/m);
      if (scope === "--system") expect(out).toContain("ProtectSystem=full");
      // A user manager has no network-online.target; the system manager does.
      if (scope === "--user") expect(out).not.toContain("network-online");
      else expect(out).toContain("After=network-online.target");
      const unit = join(home, `baton${scope}.service`.replace("--", "-"));
      writeFileSync(unit, out);
      const verified = verifyUnitFile(unit);
      if (verified) expect(verified, verified.output).toEqual({ ok: true, output: "" });
    }
  });

  it("quotes paths with spaces, % and $ as systemd reads them", () => {
    expect(systemdWord("/opt/my dir/baton")).toBe('"/opt/my dir/baton"');
    expect(systemdWord("50%")).toBe("50%%");
    expect(systemdWord("a$b")).toBe("a$$b");
    const home = tempDir();
    const unit = join(home, "spaced.service");
    writeFileSync(unit, renderUnit({ scope: "user", exec: [BATON], dataDir: join(home, "data dir"), path: "/usr/bin:/bin", home, graceMs: 30_000 }));
    const verified = verifyUnitFile(unit);
    if (verified) expect(verified, verified.output).toEqual({ ok: true, output: "" });
  });

  it("install writes the user unit and asks systemctl to load and start it; uninstall stops and removes it", () => {
    const { env, config, calls } = sandbox();
    const install = spawnSync(process.execPath, [BATON, "service", "install", "--user", "--config", config], { env, encoding: "utf8" });
    expect(install.status, install.stderr).toBe(0);
    const unit = join(env.XDG_CONFIG_HOME!, "systemd", "user", "baton.service");
    expect(readFileSync(unit, "utf8")).toContain(`--config ${config}`);
    expect(install.stdout).toMatch(/enabled and started \(user\)/);
    expect(install.stdout).toMatch(/loginctl enable-linger/);
    expect(calls()).toEqual(["--user daemon-reload", "--user enable --now baton.service"]);
    // status / uninstall find the installed (user) unit without being told.
    const removed = spawnSync(process.execPath, [BATON, "service", "uninstall"], { env, encoding: "utf8" });
    expect(removed.status, removed.stderr).toBe(0);
    expect(existsSync(unit)).toBe(false);
    expect(calls().slice(2)).toEqual(["--user disable --now baton.service", "--user daemon-reload"]);
    const again = spawnSync(process.execPath, [BATON, "service", "uninstall", "--user"], { env, encoding: "utf8" });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/No user service installed/);
  });

  it("refuses to install a service for a config that does not load", () => {
    const { env, home } = sandbox();
    const broken = join(home, "broken.yaml");
    writeFileSync(broken, "agents:\n  defualt: demo\n");
    const res = spawnSync(process.execPath, [BATON, "service", "install", "--user", "--config", broken], { env, encoding: "utf8" });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/Fix the config first: .*broken\.yaml:2: agents\.defualt: unknown key "defualt" \(did you mean "default"\?\)/);
  });
});

/** A real account other than root with a home, to run a system service as (the test runs as root in CI). */
const otherAccount = (() => {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => {
      const f = l.split(":");
      return f[0] !== "root" && Number(f[2]) >= 1 && f[5] && f[5] !== "/";
    });
  return line ? { name: line.split(":")[0], home: line.split(":")[5] } : undefined;
})();
const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot || !otherAccount)("a system service installed as root", () => {
  it("under sudo: runs as the account that ran sudo, in its home, with its data dir (not root's)", () => {
    const { env, config } = sandbox();
    const plan = planUnit({ system: true, config }, { ...env, HOME: "/root", SUDO_USER: otherAccount!.name });
    expect(plan.text).toContain(`User=${otherAccount!.name}\n`);
    expect(plan.text).toContain(`WorkingDirectory=${otherAccount!.home}\n`);
    expect(plan.text).toContain(`Environment=HOME=${otherAccount!.home}\n`);
    expect(plan.text).toContain(`--data-dir ${join(otherAccount!.home, ".baton")}`);
    expect(plan.text).not.toContain("/root");
    expect(plan.warnings.filter((w) => /root/.test(w))).toEqual([]);
  });

  it("as root itself: a warning naming --user-name; --user-name runs it as that account", () => {
    const { env, config } = sandbox();
    const plain = { ...env, HOME: "/root", SUDO_USER: undefined };
    const res = spawnSync(process.execPath, [BATON, "service", "install", "--system", "--print", "--config", config], { env: plain, encoding: "utf8" });
    expect(res.status).toBe(0);
    expect(res.stdout).toContain("User=root\n");
    expect(res.stderr).toContain("baton: This service would run Baton, and every agent it starts, as root. Run it as another account: --user-name <name>");
    const named = spawnSync(process.execPath, [BATON, "service", "install", "--system", "--print", "--config", config, "--user-name", otherAccount!.name], { env: plain, encoding: "utf8" });
    expect(named.stdout).toContain(`User=${otherAccount!.name}\n`);
    expect(named.stdout).toContain(`--data-dir ${join(otherAccount!.home, ".baton")}`);
    expect(named.stderr).not.toMatch(/as root/);
    const unknown = spawnSync(process.execPath, [BATON, "service", "install", "--system", "--print", "--user-name", "no-such-account-here"], { env: plain, encoding: "utf8" });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('baton: There is no account named "no-such-account-here" on this machine.\n');
    expect(accountNamed("root").home).toBe("/root");
  });
});

describe("baton service on macOS (launchd)", () => {
  /** The plist as a real parser reads it (Python's plistlib), as JSON. */
  function parsePlist(path: string): Record<string, any> {
    return JSON.parse(execFileSync("python3", ["-c", "import json,plistlib,sys; print(json.dumps(plistlib.load(open(sys.argv[1],'rb'))))", path], { encoding: "utf8" }));
  }

  it.skipIf(spawnSync("python3", ["-c", "import plistlib"]).status !== 0)("install writes a launchd agent plist and bootstraps it; uninstall boots it out and removes it", () => {
    const { env, config, home } = sandbox();
    const bin = join(home, "bin");
    const log = join(home, "launchctl.log");
    writeFileSync(join(bin, "launchctl"), `#!/bin/sh\necho "$*" >> ${log}\n`);
    chmodSync(join(bin, "launchctl"), 0o755);
    const data = join(home, "my data & more");
    expect(runServiceInstall({ config, dataDir: data }, env, "darwin")).toBe(0);
    const path = join(home, "Library", "LaunchAgents", "baton.plist");
    const plist = parsePlist(path);
    expect(plist.Label).toBe("baton");
    expect(plist.ProgramArguments).toEqual([BATON, "start", "--config", config, "--data-dir", data]);
    expect(plist.EnvironmentVariables).toEqual({ HOME: home, PATH: env.PATH, NODE_ENV: "production" });
    expect(plist.WorkingDirectory).toBe(home);
    expect(plist.RunAtLoad).toBe(true);
    expect(plist.KeepAlive).toEqual({ SuccessfulExit: false }); // restarted when it fails, not after a clean stop
    expect(plist.ExitTimeOut).toBe(75); // shutdown_grace 60 s + time for the agents to stop, before SIGKILL
    expect(plist.Umask).toBe(0o077);
    expect(plist.StandardErrorPath).toBe(join(home, "Library", "Logs", "baton", "baton.err.log"));
    expect(existsSync(join(home, "Library", "Logs", "baton"))).toBe(true);
    const uid = process.getuid!();
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual([`bootout gui/${uid}/baton`, `bootstrap gui/${uid} ${path}`]);
    expect(runServiceUninstall({}, env, "darwin")).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(readFileSync(log, "utf8").trim().split("\n").at(-1)).toBe(`bootout gui/${uid}/baton`);
    expect(() => planUnit({ system: true }, env, "darwin")).toThrow(/launchd agent for your user/);
  });
});

describe("the container recipe", () => {
  const dockerfile = readFileSync(join(REPO, "Dockerfile"), "utf8");
  /** Instructions with their continuation lines joined, comments dropped. */
  const instructions = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const [, op, rest] = /^(\S+)\s+(.*)$/.exec(l)!;
      return { op: op.toUpperCase(), rest };
    });
  const finalStage = instructions.slice(instructions.map((i) => i.op).lastIndexOf("FROM"));

  it("Dockerfile: Node LTS slim, built with npm pack, a non-root user, the data dir a volume, agent CLIs in their own layer, a health check on /healthz", () => {
    const known = new Set(["ARG", "FROM", "WORKDIR", "COPY", "RUN", "ENV", "USER", "VOLUME", "EXPOSE", "HEALTHCHECK", "STOPSIGNAL", "ENTRYPOINT", "CMD"]);
    expect(instructions.filter((i) => !known.has(i.op))).toEqual([]);
    const nodeVersion = /^NODE_VERSION=(\d+)$/.exec(instructions.find((i) => i.op === "ARG")!.rest)![1];
    expect(Number(nodeVersion) % 2, "an LTS line (even major)").toBe(0);
    expect(Number(nodeVersion)).toBeGreaterThanOrEqual(20);
    for (const from of instructions.filter((i) => i.op === "FROM")) expect(from.rest).toMatch(/^node:\$\{NODE_VERSION\}-bookworm-slim\b/);
    expect(instructions.some((i) => i.op === "RUN" && /npm pack/.test(i.rest))).toBe(true);
    // Every COPY from the build context names something the repository has.
    for (const copy of instructions.filter((i) => i.op === "COPY" && !i.rest.startsWith("--from"))) {
      for (const source of copy.rest.split(/\s+/).slice(0, -1)) expect(existsSync(join(REPO, source)), source).toBe(true);
    }
    const ops = finalStage.map((i) => i.op);
    expect(finalStage.find((i) => i.op === "USER")?.rest).toBe("node");
    expect(ops.indexOf("USER")).toBeLessThan(ops.indexOf("ENTRYPOINT"));
    expect(finalStage.find((i) => i.op === "VOLUME")?.rest).toContain("/data");
    expect(finalStage.find((i) => i.op === "ENV")?.rest).toContain("BATON_DATA_DIR=/data");
    const agentsArg = finalStage.findIndex((i) => i.op === "ARG" && i.rest.startsWith("AGENT_PACKAGES="));
    expect(agentsArg).toBeGreaterThan(0);
    expect(finalStage[agentsArg + 1]).toMatchObject({ op: "RUN", rest: expect.stringContaining("npm install -g --no-audit --no-fund $AGENT_PACKAGES") });
    expect(finalStage.find((i) => i.op === "HEALTHCHECK")?.rest).toContain("/healthz");
    expect(finalStage.find((i) => i.op === "ENTRYPOINT")?.rest).toBe('["tini", "--", "baton"]');
    // Installed from the lockfile: the unpacked tarball beside package-lock.json, npm ci --omit=dev; never a fresh resolve.
    const build = instructions.slice(0, instructions.length - finalStage.length);
    expect(build.find((i) => i.op === "RUN" && /npm pack/.test(i.rest))?.rest).toMatch(/tar -xzf .* -C \/opt\/baton .*cp package-lock\.json \/opt\/baton\//);
    expect(finalStage.find((i) => i.op === "RUN" && /\/opt\/baton/.test(i.rest))?.rest).toMatch(/^cd \/opt\/baton && npm ci --omit=dev /);
    expect(finalStage.filter((i) => i.op === "RUN" && /npm install -g/.test(i.rest)).map((i) => i.rest)).toEqual([expect.stringContaining("$AGENT_PACKAGES")]);
  });

  it("compose.yaml: the image built here, data and home on volumes, ports on the host's loopback only, a stop grace past shutdown_grace", () => {
    const compose = parse(readFileSync(join(REPO, "compose.yaml"), "utf8")) as { services: Record<string, any>; volumes: Record<string, unknown> };
    const baton = compose.services.baton;
    expect(baton.build.context).toBe(".");
    expect(baton.build.args.NODE_VERSION).toBe(/^NODE_VERSION=(\d+)$/.exec(instructions.find((i) => i.op === "ARG")!.rest)![1]);
    expect(baton.restart).toBe("unless-stopped");
    expect(Number(/^(\d+)s$/.exec(baton.stop_grace_period)![1])).toBeGreaterThan(30);
    expect(baton.volumes).toEqual(expect.arrayContaining(["baton-data:/data", "baton-home:/home/node"]));
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(["baton-data", "baton-home"]));
    for (const port of baton.ports as string[]) expect(port).toMatch(/^127\.0\.0\.1:/);
    // Works without a pre-made config: a folder is mounted (Docker would make a missing file a folder),
    // where Baton looks by itself; no BATON_CONFIG pointing at a file that may not exist.
    expect(baton.environment.BATON_CONFIG).toBeUndefined();
    expect(baton.volumes).toContain("./config:/home/node/.config/baton:ro");
    for (const volume of baton.volumes as string[]) expect(volume.split(":")[0], volume).not.toMatch(/\.(ya?ml|json|toml)$/);
  });
});
