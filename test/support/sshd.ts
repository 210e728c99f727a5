// A real OpenSSH server for tests: Debian's sshd on loopback, on a free non-standard port, with a
// throwaway host key, a throwaway user key, its own sshd_config (no PAM, keys only) and a
// known_hosts file naming its key. The "remote" user is this user with another HOME, so the remote
// machine's ~/.baton (its session store, its handover endpoint) is really separate from the daemon's.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { startOnFreePort } from "./free-port.js";

const SSHD = "/usr/sbin/sshd";
/** sshd's privilege-separation directory; the package's service creates it at boot, tests when missing. */
const PRIVSEP_DIR = "/run/sshd";
const READY_TIMEOUT_MS = 10_000;

export interface TestSshd {
  port: number;
  /** user@127.0.0.1 */
  destination: string;
  identityFile: string;
  /** A known_hosts file with this server's host key. */
  knownHosts: string;
  /** The remote user's HOME (where `~` and ~/.baton are there). */
  home: string;
  /** The temp dir holding everything (keys, config, home). */
  dir: string;
  /** `machines.<name>` settings for the config, reaching this server. */
  machine(extra?: Record<string, unknown>): Record<string, unknown>;
  /** Drops every open SSH connection (as a network failure would), keeping the server up. */
  dropConnections(): void;
  /** Stops the server (and its connections); start() brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes every file it made. */
  close(): Promise<void>;
}

export function sshdAvailable(): boolean {
  return existsSync(SSHD) && existsSync("/usr/bin/ssh");
}

export async function startTestSshd(): Promise<TestSshd> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-sshd-")));
  const key = (name: string) => execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `baton-test-${name}`, "-f", join(dir, name)]);
  key("host_key");
  key("user_key");
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "user_key.pub")), { mode: 0o600 });
  const home = join(dir, "home");
  mkdirSync(home, { mode: 0o700 });
  if (!existsSync(PRIVSEP_DIR)) mkdirSync(PRIVSEP_DIR, { mode: 0o755 });
  const hostKey = readFileSync(join(dir, "host_key.pub"), "utf8").trim().split(/\s+/).slice(0, 2).join(" ");
  const knownHosts = join(dir, "known_hosts");
  let port = 0;
  const configure = (chosen: number) => {
    port = chosen;
    writeFileSync(join(dir, "sshd_config"), sshdConfig(dir, home, port));
    writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostKey}\n`);
  };
  const user = userInfo().username;

  let server: ChildProcess | undefined;
  const log = join(dir, "sshd.log");
  const start = async () => {
    writeFileSync(log, "");
    const child = spawn(SSHD, ["-D", "-f", join(dir, "sshd_config"), "-E", log], { stdio: "ignore" });
    server = child;
    await waitForListening(log, port, child);
  };
  // Each connection is a privileged monitor and, after login, an unprivileged sshd that does the
  // network I/O: killing both cuts the TCP connection at once, as a network failure would. The
  // user's processes under them are left to notice, as they would.
  const dropConnections = () => {
    if (server?.pid) for (const pid of sshdDescendants(server.pid)) tryKill(pid);
  };
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    for (const pid of sshdDescendants(child.pid!)) tryKill(pid);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  // A free port can be taken by another process before sshd binds it: then another port.
  await startOnFreePort(async (chosen) => {
    configure(chosen);
    await start();
  }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    port,
    destination: `${user}@127.0.0.1`,
    identityFile: join(dir, "user_key"),
    knownHosts,
    home,
    dir,
    machine: (extra = {}) => ({ ssh: `${user}@127.0.0.1`, port, identity_file: join(dir, "user_key"), known_hosts: knownHosts, connect_timeout: "5s", ...extra }),
    dropConnections,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function sshdConfig(dir: string, home: string, port: number): string {
  return `${[
    "ListenAddress 127.0.0.1",
    `Port ${port}`,
    `HostKey ${join(dir, "host_key")}`,
    `PidFile ${join(dir, "sshd.pid")}`,
    `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
    "UsePAM no",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PubkeyAuthentication yes",
    "PermitRootLogin prohibit-password",
    "StrictModes no",
    "AllowTcpForwarding yes",
    "X11Forwarding no",
    "PrintMotd no",
    `SetEnv HOME=${home}`,
    "LogLevel VERBOSE",
  ].join("\n")}\n`;
}

/** The sshd processes below the listener: one monitor per connection and its session process. */
function sshdDescendants(root: number): number[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
    } catch {
      // gone meanwhile
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  return [...parents.keys()].filter((pid) => names.get(pid) === "sshd" && below(pid));
}

function tryKill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** sshd's own log line says it listens (a bare connect could reach whoever else took the port). */
async function waitForListening(log: string, port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const line = `Server listening on 127.0.0.1 port ${port}.`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited with code ${child.exitCode} before listening on ${port}: ${readFileSync(log, "utf8").trim()}`);
    if (readFileSync(log, "utf8").includes(line)) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on ${port} within ${READY_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
