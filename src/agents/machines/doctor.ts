// `baton doctor` for one configured machine: reachable with its host key verified, its roots
// there, Baton there (store readers, terminal handover), the agent CLIs there, and the reverse
// tunnel allowed. It connects exactly as the daemon does, on a private connection it ends after.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { userMessageOf } from "../../kernel/errors.js";
import type { AgentKind } from "../products/index.js";
import { SshMachine } from "./ssh-machine.js";
import type { MachineSettings } from "./types.js";

export interface MachineCheck {
  area: string;
  status: "ok" | "warn" | "fail";
  message: string;
}

/** Prints `ok<TAB>path` or `missing` for each command name. */
const WHICH_SCRIPT = 'for c in "$@"; do if p=$(command -v "$c" 2>/dev/null); then printf "ok\\t%s\\n" "$p"; else printf "missing\\n"; fi; done';

/** Checks a machine; `agents` are the kinds the config uses (their commands are looked for there). */
export async function checkMachine(name: string, settings: MachineSettings, agents: AgentKind[], env: NodeJS.ProcessEnv = process.env): Promise<MachineCheck[]> {
  const area = `machine ${name}`;
  const dir = mkdtempSync(join(tmpdir(), "baton-doctor-"));
  const machine = new SshMachine(name, settings, { controlDir: dir, localDir: dir, env });
  try {
    let info;
    try {
      info = await machine.info();
    } catch (error) {
      return [{ area, status: "fail", message: userMessageOf(error) }];
    }
    const checks: MachineCheck[] = [{ area, status: "ok", message: `${machine.label}: connected, host key verified; home ${info.home}` }];
    for (const root of info.missingRoots) checks.push({ area, status: "fail", message: `root ${root} does not exist on ${name}; create it or fix machines.${name}.roots` });
    if (info.roots.length > 0) checks.push({ area, status: "ok", message: `roots: ${info.roots.join(", ")}` });
    if (info.baton) checks.push({ area, status: "ok", message: `Baton ${info.baton} there: its session-store readers run there` });
    else if (settings.baton === false)
      checks.push({ area, status: "warn", message: `no Baton there (machines.${name}.baton: false): session stores are copied over ssh to be read; no terminal handover from ${name}` });
    else
      checks.push({
        area,
        status: "warn",
        message: `\`${[settings.baton].flat().join(" ")}\` does not run on ${name}: install Baton there (or set machines.${name}.baton to its command); until then stores are copied over ssh and there is no terminal handover`,
      });
    checks.push(...(await checkAgents(machine, agents)));
    if (settings.handover === "tunnel" && info.baton) {
      try {
        await machine.connection.forwardToHere("127.0.0.1", 9);
        checks.push({ area, status: "ok", message: "reverse tunnel for terminal handover allowed" });
      } catch (error) {
        checks.push({ area, status: "fail", message: userMessageOf(error) });
      }
    }
    return checks;
  } finally {
    await machine.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function checkAgents(machine: SshMachine, agents: AgentKind[]): Promise<MachineCheck[]> {
  const area = `machine ${machine.name}`;
  const commands: Array<{ kind: AgentKind; command: string; rest: string[] }> = [];
  const out: MachineCheck[] = [];
  for (const kind of agents) {
    const { command, args } = kind.acpCommand();
    try {
      const [first, ...rest] = machine.agentCommand({ kind, command, args });
      commands.push({ kind, command: first, rest });
    } catch (error) {
      out.push({ area, status: "fail", message: userMessageOf(error) });
    }
  }
  if (commands.length === 0) return out;
  const result = await machine.run(
    WHICH_SCRIPT,
    commands.map((c) => c.command),
  );
  const lines = result.stdout.trim().split("\n");
  commands.forEach(({ kind, command, rest }, i) => {
    const [state, path] = (lines[i] ?? "missing").split("\t");
    if (state === "ok") out.push({ area, status: "ok", message: `${kind.displayName}: ${[path, ...rest].join(" ")}` });
    else
      out.push({
        area,
        status: "fail",
        message: `${kind.displayName}: \`${command}\` not found on ${machine.name}'s PATH. Install it there (${kind.installHint}) or set machines.${machine.name}.agents.${kind.id}.command`,
      });
  });
  return out;
}
