// Workspaces: directories an agent may run in. Only directories under the configured roots, or
// registered by a terminal handover, are allowed.
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import type { WorkspacesApi } from "../commands/context.js";
import { CommandError } from "../kernel/errors.js";
import { expandHome } from "../config/load.js";
import type { BatonConfig } from "../config/schema.js";

export class Workspaces implements WorkspacesApi {
  private readonly roots: string[];
  private readonly named: Map<string, string>;
  /** Directories registered at runtime (terminal handovers), with their display names. */
  private readonly registered = new Map<string, string>();
  private readonly fallback: string;

  constructor(config: BatonConfig["workspaces"], cwd: string = process.cwd()) {
    this.roots = (config.roots.length > 0 ? config.roots : [homedir()]).map((r) => canonical(resolve(expandHome(r))));
    this.fallback = canonical(resolve(expandHome(config.default ?? cwd)));
    this.named = new Map(Object.entries(config.named).map(([name, path]) => [name, canonical(resolve(expandHome(path)))]));
  }

  default(): string {
    return this.fallback;
  }

  list(): Array<{ name: string; path: string }> {
    const out = [{ name: "default", path: this.fallback }, ...[...this.named].map(([name, path]) => ({ name, path }))];
    for (const [path, name] of this.registered) if (!out.some((w) => w.path === path)) out.push({ name, path });
    return out;
  }

  /** Registers a directory a terminal handed over (it need not be under a root). */
  register(path: string, name?: string): string {
    const dir = canonical(resolve(path));
    if (name || !this.registered.has(dir)) this.registered.set(dir, name || basename(dir));
    return dir;
  }

  isAllowed(path: string): boolean {
    const dir = canonical(resolve(path));
    return dir === this.fallback || this.registered.has(dir) || [...this.named.values()].includes(dir) || this.roots.some((root) => isInside(dir, root));
  }

  describeRoots(): string {
    return this.roots.join(", ");
  }

  resolve(nameOrPath: string): string {
    const registeredName = [...this.registered].find(([, name]) => name === nameOrPath)?.[0];
    const named = this.named.get(nameOrPath) ?? registeredName ?? (nameOrPath === "default" ? this.fallback : undefined);
    const expanded = expandHome(nameOrPath);
    if (!named && !isAbsolute(expanded)) {
      const names = this.list().map((w) => w.name).join(", ");
      throw new CommandError(`No workspace named "${nameOrPath}". Use one of: ${names}, or an absolute path.`);
    }
    const dir = named ?? canonical(resolve(expanded));
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // reported below
    }
    if (!isDir) throw new CommandError(`\`${dir}\` is not an existing directory.`);
    if (!this.isAllowed(dir)) throw new CommandError(`\`${dir}\` is outside the allowed workspace roots (${this.describeRoots()}). Add it to workspaces.roots in the config.`);
    return dir;
  }
}

function isInside(dir: string, root: string): boolean {
  const rel = relative(root, dir);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

/** The real path when it exists (so /tmp and /private/tmp compare equal), else as given. */
function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
