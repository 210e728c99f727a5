// Settings a command line or an environment can change without editing the file: the web chat's
// address (`--port`, BATON_WEB_LISTEN) and the ops listener's (BATON_OPS_LISTEN), for a service
// unit or a container that keeps the config read-only.
import { ConfigError } from "../kernel/errors.js";
import { parseListenAddress } from "../kernel/listen.js";
import type { LoadedConfig } from "./load.js";

export interface StartOverrides {
  /** `--port`: the web chat's port, keeping the configured host. */
  port?: string;
  env?: NodeJS.ProcessEnv;
}

/** Applies the overrides in place; returns notes for the log (an override with nothing to apply to). */
export function applyStartOverrides(loaded: LoadedConfig, { port, env = process.env }: StartOverrides): string[] {
  const notes: string[] = [];
  const web = loaded.platforms.find((p) => p.kind === "web");
  const fromEnv = env.BATON_WEB_LISTEN?.trim();
  if (fromEnv) {
    if (!parseListenAddress(fromEnv)) throw new ConfigError(`BATON_WEB_LISTEN: expected host:port or a port, such as 127.0.0.1:8787 or 8787; got "${fromEnv}"`);
    if (web) web.config.listen = fromEnv;
    else notes.push("BATON_WEB_LISTEN is set, but the web chat is not enabled in the config; ignored");
  }
  if (port !== undefined) {
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) throw new ConfigError(`--port: expected a port number from 0 to 65535, got "${port}"`);
    if (!web) throw new ConfigError(`--port sets the web chat's port, but the web chat is not enabled${loaded.path ? ` in ${loaded.path}` : ""}. Enable platforms.web, or leave --port out.`);
    const host = parseListenAddress(String(web.config.listen ?? ""))?.host ?? "127.0.0.1";
    web.config.listen = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  }
  const ops = env.BATON_OPS_LISTEN?.trim();
  if (ops) loaded.config.ops.listen = ops;
  return notes;
}
