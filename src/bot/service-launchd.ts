// `baton service` on macOS: a launchd agent of the logged-in user (~/Library/LaunchAgents), the
// counterpart of the systemd user unit. launchd starts it at login and again when it exits with a
// failure (KeepAlive SuccessfulExit=false), sends SIGTERM to stop it and SIGKILL only after
// ExitTimeOut, so running turns get shutdown_grace; its output goes to ~/Library/Logs/baton/.
import { join } from "node:path";
import { SERVICE_NAME } from "./service-unit.js";

/** launchd's name for the job (`launchctl print gui/<uid>/baton`). */
const LAUNCHD_LABEL = SERVICE_NAME;
/** Time for the agents to stop after the grace period, before launchd kills what is left (as in the systemd unit). */
const STOP_MARGIN_S = 15;
/** launchd waits this long before starting a job again after it exited (its own default is 10 s). */
const RESTART_THROTTLE_S = 5;
/** 0077: files Baton creates are its user's only, as the systemd unit's UMask says. */
const UMASK = 0o077;

export interface LaunchdSpec {
  /** The launcher (`baton` of this install) and its fixed arguments. */
  exec: string[];
  config?: string;
  dataDir: string;
  path: string;
  home: string;
  graceMs: number;
}

export function plistPath(home: string): string {
  return join(home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`);
}

export function logPaths(home: string): { out: string; err: string } {
  const dir = join(home, "Library", "Logs", SERVICE_NAME);
  return { out: join(dir, "baton.log"), err: join(dir, "baton.err.log") };
}

const xml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const str = (text: string) => `<string>${xml(text)}</string>`;

export function renderPlist(spec: LaunchdSpec): string {
  const args = [...spec.exec, "start", ...(spec.config ? ["--config", spec.config] : []), "--data-dir", spec.dataDir];
  const logs = logPaths(spec.home);
  const env = { HOME: spec.home, PATH: spec.path, NODE_ENV: "production" };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    "<!-- Baton: coding agents in team chat. Written by `baton service install`; `baton service uninstall` removes it. -->",
    '<plist version="1.0">',
    "<dict>",
    `  <key>Label</key>${str(LAUNCHD_LABEL)}`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...args.map((a) => `    ${str(a)}`),
    "  </array>",
    "  <key>EnvironmentVariables</key>",
    "  <dict>",
    ...Object.entries(env).map(([k, v]) => `    <key>${xml(k)}</key>${str(v)}`),
    "  </dict>",
    `  <key>WorkingDirectory</key>${str(spec.home)}`,
    "  <key>RunAtLoad</key><true/>",
    "  <key>KeepAlive</key>",
    "  <dict>",
    "    <key>SuccessfulExit</key><false/>",
    "  </dict>",
    `  <key>ThrottleInterval</key><integer>${RESTART_THROTTLE_S}</integer>`,
    `  <key>ExitTimeOut</key><integer>${Math.ceil(spec.graceMs / 1000) + STOP_MARGIN_S}</integer>`,
    `  <key>Umask</key><integer>${UMASK}</integer>`,
    `  <key>StandardOutPath</key>${str(logs.out)}`,
    `  <key>StandardErrorPath</key>${str(logs.err)}`,
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

/** launchctl's target for this user's agent (`gui/<uid>` is the logged-in user's domain). */
export const launchdDomain = (uid: number) => `gui/${uid}`;
export const launchdService = (uid: number) => `${launchdDomain(uid)}/${LAUNCHD_LABEL}`;
