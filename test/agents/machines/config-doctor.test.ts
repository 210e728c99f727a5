// The `machines:` config (names, listener settings, workspace references) and `baton doctor`'s
// check of each machine against a real sshd: reachable with its host key, roots, Baton, agents.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { parseConfigText } from "../../../src/config/load.js";
import { ConfigError } from "../../../src/kernel/errors.js";
import { parseWorkspaceRef } from "../../../src/agents/machines/refs.js";
import { tempDir, removeTempDirs } from "../../pickup/helpers.js";
import { startTestSshd, sshdAvailable, type TestSshd } from "../../support/sshd.js";
import { BATON_BIN, REMOTE_BATON } from "./helpers.js";

vi.setConfig({ testTimeout: 60_000 });

let sshd: TestSshd | undefined;
afterEach(async () => {
  await sshd?.close();
  sshd = undefined;
  removeTempDirs();
});

function configError(text: string): string {
  try {
    parseConfigText(text, "baton.yaml", {});
  } catch (error) {
    if (error instanceof ConfigError) return error.userMessage;
    throw error;
  }
  throw new Error("the config was accepted");
}

describe("machines in the config", () => {
  it("validates machine names, the ssh destination and the listener settings, naming the key and line", () => {
    expect(configError("machines:\n  local:\n    ssh: dev@box\n")).toMatch(/baton\.yaml:2: machines\.local.*`local` is this machine/);
    expect(configError("machines:\n  Build:\n    ssh: dev@box\n")).toMatch(/machines\.Build.*a machine name/);
    expect(configError("machines:\n  build:\n    ssh: -oProxyCommand=evil\n")).toMatch(/machines\.build\.ssh.*an ssh destination/);
    expect(configError("machines:\n  build:\n    ssh: dev@box\n    handover: listener\n")).toMatch(/machines\.build\.handover_url: handover: listener needs the URL/);
    expect(configError("machines:\n  build:\n    ssh: dev@box\n    handover: listener\n    handover_url: http://baton.lan:8790/mcp\n")).toMatch(
      /handover\.remote_listen: machine build has handover: listener/,
    );
    const ok = parseConfigText("machines:\n  build:\n    ssh: dev@build.internal\n    roots: [~/code]\nworkspaces:\n  default: build:~/code/api\n", "baton.yaml", {});
    expect(ok.config.machines.build).toMatchObject({ ssh: "dev@build.internal", roots: ["~/code"], handover: "tunnel", baton: "baton", connect_timeout: 10_000 });
  });

  it("a workspace names its machine; anything else is a path here", () => {
    const isMachine = (n: string) => n === "build";
    expect(parseWorkspaceRef("build:~/code/api", isMachine)).toEqual({ machine: "build", path: "~/code/api" });
    expect(parseWorkspaceRef("build:/srv/api", isMachine)).toEqual({ machine: "build", path: "/srv/api" });
    expect(parseWorkspaceRef("local:/srv/api", isMachine)).toEqual({ machine: "local", path: "/srv/api" });
    expect(parseWorkspaceRef("/home/me/api", isMachine)).toEqual({ machine: "local", path: "/home/me/api" });
    expect(parseWorkspaceRef("gpu:/x", isMachine)).toEqual({ machine: "local", path: "gpu:/x" });
  });
});

describe.skipIf(!sshdAvailable())("baton doctor and machines", () => {
  it("checks each machine: reachable with a known host key, roots, Baton and the agents there; an unknown key fails", async () => {
    sshd = await startTestSshd();
    mkdirSync(join(sshd.home, "code"));
    const dir = tempDir("baton-doctor-cfg-");
    const emptyKnownHosts = join(dir, "empty_known_hosts");
    writeFileSync(emptyKnownHosts, "");
    const config = join(dir, "baton.yaml");
    writeFileSync(
      config,
      stringify({
        agents: { default: "demo" },
        machines: {
          build: sshd.machine({ roots: ["~/code", "~/missing"], baton: REMOTE_BATON }),
          stranger: sshd.machine({ known_hosts: emptyKnownHosts }),
        },
      }),
    );
    const child = spawn(process.execPath, [BATON_BIN, "doctor", "--json", "--config", config, "--data-dir", join(dir, "data")], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.resume();
    const code = await new Promise((resolve) => child.once("exit", resolve));
    const report = JSON.parse(out) as { ok: boolean; checks: Array<{ area: string; status: string; message: string }> };
    expect(code).toBe(1);
    const build = report.checks.filter((c) => c.area === "machine build");
    expect(build.find((c) => /connected, host key verified/.test(c.message))?.status).toBe("ok");
    expect(build.find((c) => /roots: /.test(c.message))?.message).toContain(join(sshd.home, "code"));
    expect(build.find((c) => /~\/missing does not exist/.test(c.message))?.status).toBe("fail");
    expect(build.find((c) => /^Baton \d+\.\d+\.\d+ there/.test(c.message))?.status).toBe("ok");
    expect(build.find((c) => c.message.startsWith("Baton demo agent: "))).toMatchObject({ status: "ok", message: `Baton demo agent: ${process.execPath} ${BATON_BIN} demo-agent` });
    expect(build.find((c) => /reverse tunnel/.test(c.message))?.status).toBe("ok");
    const stranger = report.checks.filter((c) => c.area === "machine stranger");
    expect(stranger).toHaveLength(1);
    expect(stranger[0]).toMatchObject({ status: "fail" });
    expect(stranger[0].message).toMatch(/does not know stranger's host key/);
  });
});
