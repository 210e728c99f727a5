// The systemd unit `baton service install` writes. Restart on failure; SIGTERM to Baton alone
// (KillMode=mixed) so it can drain: running turns get shutdown_grace, then Baton stops its agents
// itself, and only what is left after TimeoutStopSec is killed. Hardening that agents survive:
// they write in workspaces and the home directory, run their own sandboxes (user namespaces) and
// tools, so the home stays writable and no namespace or user remapping is imposed.
import { homedir } from "node:os";
import { join } from "node:path";

export type ServiceScope = "user" | "system";

export const SERVICE_NAME = "baton";
/** Time for the agents to stop after the grace period, before systemd kills what is left. */
const STOP_MARGIN_S = 15;

export interface UnitSpec {
  scope: ServiceScope;
  /** The launcher (`baton` of this install) and its fixed arguments. */
  exec: string[];
  /** Absolute path of the config file; absent: the embedded default. */
  config?: string;
  dataDir: string;
  /** Where agents find their CLIs (the PATH of whoever installs the service). */
  path: string;
  home: string;
  /** System scope: the account Baton runs as (its agents' logins live in its home). */
  user?: string;
  graceMs: number;
}

/** Quotes one word for ExecStart= / Environment= (systemd's own rules: "…", and % and $ doubled). */
export function systemdWord(word: string): string {
  const escaped = word.replace(/%/g, "%%").replace(/\$/g, "$$$$");
  return /[\s"'\\;]/.test(escaped) || escaped === "" ? `"${escaped.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"` : escaped;
}

export function unitPath(scope: ServiceScope, env: NodeJS.ProcessEnv = process.env): string {
  if (scope === "system") return join("/etc/systemd/system", `${SERVICE_NAME}.service`);
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config"), "systemd", "user", `${SERVICE_NAME}.service`);
}

export function renderUnit(spec: UnitSpec): string {
  const exec = [...spec.exec, "start", ...(spec.config ? ["--config", spec.config] : []), "--data-dir", spec.dataDir].map(systemdWord).join(" ");
  const stopSeconds = Math.ceil(spec.graceMs / 1000) + STOP_MARGIN_S;
  const system = spec.scope === "system";
  const lines = [
    "# Baton: coding agents in team chat. Written by `baton service install`; `baton service uninstall` removes it.",
    "[Unit]",
    "Description=Baton: coding agents in team chat",
    // The system manager has network-online.target; a user manager has no such unit (it would only be ignored).
    ...(system ? ["After=network-online.target", "Wants=network-online.target"] : []),
    "",
    "[Service]",
    "Type=exec",
    ...(system && spec.user ? [`User=${spec.user}`] : []),
    `ExecStart=${exec}`,
    "ExecReload=/bin/kill -HUP $MAINPID",
    "Restart=on-failure",
    "RestartSec=5s",
    "KillMode=mixed",
    `TimeoutStopSec=${stopSeconds}s`,
    `WorkingDirectory=${systemdWord(spec.home)}`,
    `Environment=${systemdWord(`HOME=${spec.home}`)}`,
    `Environment=${systemdWord(`PATH=${spec.path}`)}`,
    "Environment=NODE_ENV=production",
    "UMask=0077",
    "NoNewPrivileges=yes",
    "LockPersonality=yes",
    "RestrictRealtime=yes",
    ...(system
      ? [
          // /usr, /boot and /etc read-only: agents still write in the home and workspaces.
          "ProtectSystem=full",
          "ProtectKernelTunables=yes",
          "ProtectKernelModules=yes",
          "ProtectKernelLogs=yes",
          "ProtectControlGroups=yes",
          "ProtectClock=yes",
          "ProtectHostname=yes",
          "RestrictSUIDSGID=yes",
          "SystemCallArchitectures=native",
        ]
      : []),
    "",
    "[Install]",
    `WantedBy=${system ? "multi-user.target" : "default.target"}`,
    "",
  ];
  return lines.join("\n");
}
