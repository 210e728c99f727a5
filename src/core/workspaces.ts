// Workspaces: directories an agent may run in, on this machine or another (`build:~/code/api`).
// Only directories under the configured roots of their machine (or named in the config) are
// allowed. A registration gives a directory a name; it allows a directory outside the roots only
// when a person confirmed it in the chat and `workspaces.allow_outside_roots` is `confirm`, so an
// agent can never widen the roots by itself. Whether a directory is here or over SSH is the
// machines seam's business. Registrations are kept (through `persisted`, the thread registry).
import { basename, isAbsolute, posix, relative, resolve, sep } from "node:path";
import type { WorkspacesApi } from "../commands/context.js";
import { CommandError } from "../kernel/errors.js";
import { expandHome } from "../kernel/paths.js";
import { LOCAL_MACHINE, type Machines } from "../agents/machines/index.js";
import { canonical } from "../agents/machines/local.js";
import type { BatonConfig } from "../config/schema.js";

/** Where registrations are kept: the thread registry's log. */
interface PersistedWorkspaces {
  list(): Array<{ path: string; name?: string; confirmedBy?: string }>;
  record(path: string, name?: string, confirmedBy?: string): Promise<void>;
}

/** `name:` before a path: a machine, configured or not (a local workspace is an absolute path). */
const MACHINE_PREFIX = /^[a-z][a-z0-9_-]*:/;

export class Workspaces implements WorkspacesApi {
  private named = new Map<string, string>();
  /** Directories registered at runtime, with their display names and who confirmed one outside the roots. */
  private readonly registered = new Map<string, { name: string; confirmedBy?: string }>();
  private fallback = "";
  private outsideRoots: BatonConfig["workspaces"]["allow_outside_roots"] = "never";
  /** Named workspaces that set their own `isolation`, by canonical path. */
  private isolationByPath = new Map<string, "none" | "worktree">();

  constructor(
    config: BatonConfig["workspaces"],
    private readonly machines: Machines,
    private readonly cwd: string = process.cwd(),
    private readonly persisted: PersistedWorkspaces = { list: () => [], record: async () => undefined },
  ) {
    for (const { path, name, confirmedBy } of persisted.list()) this.registered.set(path, { name: name || basename(this.machines.parse(path).path), confirmedBy });
    this.reconfigure(config);
  }

  /** A config reload: roots, names, the default and the outside-roots policy change; registrations stay. */
  reconfigure(config: BatonConfig["workspaces"]): void {
    this.outsideRoots = config.allow_outside_roots;
    this.machines.local.setRoots(config.roots);
    this.fallback = this.normalize(config.default ?? this.cwd);
    this.named = new Map(Object.entries(config.named).map(([name, entry]) => [name, this.normalize(typeof entry === "string" ? entry : entry.path)]));
    this.isolationByPath = new Map();
    for (const [name, entry] of Object.entries(config.named)) if (typeof entry !== "string" && entry.isolation) this.isolationByPath.set(this.named.get(name)!, entry.isolation);
  }

  /**
   * A path here becomes canonical at once; one on another machine stays as written until it is
   * used, and so does one on a machine no longer configured (its thread says so when it starts).
   */
  private normalize(text: string): string {
    const ref = this.machines.parse(text);
    if (ref.machine !== LOCAL_MACHINE) return this.machines.format(ref.machine, ref.path);
    return MACHINE_PREFIX.test(text) ? text : canonical(resolve(expandHome(ref.path)));
  }

  async default(): Promise<string> {
    if (this.machines.parse(this.fallback).machine === LOCAL_MACHINE) return this.fallback;
    return (await this.directory(this.fallback)) ?? this.fallback;
  }

  list(): Array<{ name: string; path: string }> {
    const out = [{ name: "default", path: this.fallback }, ...[...this.named].map(([name, path]) => ({ name, path }))];
    for (const [path, { name }] of this.registered) if (!out.some((w) => w.path === path)) out.push({ name, path });
    for (const name of this.machines.names()) {
      for (const root of this.machines.get(name)!.configuredRoots) out.push({ name: `${name}:`, path: this.machines.format(name, root) });
    }
    return out;
  }

  /**
   * Names an allowed directory, durably. `confirmedBy`: the person who confirmed in the chat a
   * directory outside the roots (it is allowed while `allow_outside_roots` is `confirm`).
   */
  async register(workspace: string, name?: string, confirmedBy?: string): Promise<string> {
    const dir = this.normalize(workspace);
    const known = this.registered.get(dir);
    if (name || confirmedBy || !known) {
      const entry = { name: name || known?.name || basename(this.machines.parse(dir).path), confirmedBy: confirmedBy ?? known?.confirmedBy };
      if (name || confirmedBy) await this.persisted.record(dir, entry.name, entry.confirmedBy);
      this.registered.set(dir, entry);
    }
    return dir;
  }

  /** The `isolation` a named workspace at this path sets, if one does. */
  namedIsolation(workspace: string): "none" | "worktree" | undefined {
    return this.isolationByPath.get(workspace);
  }

  /** Whether a person may confirm a directory outside the roots (`workspaces.allow_outside_roots`). */
  get confirmsOutsideRoots(): boolean {
    return this.outsideRoots === "confirm";
  }

  /** Under the roots of its machine, or named in the config: allowed whatever was registered. */
  async isWithinConfig(workspace: string): Promise<boolean> {
    const dir = this.normalize(workspace);
    if (dir === this.fallback || [...this.named.values()].includes(dir)) return true;
    const { machine, path } = this.locateInput(dir);
    const inside = machine.name === LOCAL_MACHINE ? isInside : isInsidePosix;
    return (await machine.roots()).some((root) => inside(path, root));
  }

  async directory(workspace: string): Promise<string | undefined> {
    const { machine, path } = this.locateInput(workspace);
    const dir = await machine.directory(path);
    return dir === undefined ? undefined : this.machines.format(machine.name, dir);
  }

  async isAllowed(workspace: string): Promise<boolean> {
    const dir = this.normalize(workspace);
    // A registration outside the roots counts only when a person confirmed it and the config allows that.
    if (this.confirmsOutsideRoots && this.registered.get(dir)?.confirmedBy) return true;
    return this.isWithinConfig(dir);
  }

  describeRoots(workspace?: string): string {
    const machine = workspace ? this.locateInput(workspace).machine : this.machines.local;
    return machine.configuredRoots.join(", ");
  }

  machineOf(workspace: string): { name: string; label: string; login?: string; path: string } {
    try {
      const { machine, path } = this.machines.locate(workspace);
      return { name: machine.name, label: machine.label, login: machine.login, path };
    } catch {
      const ref = this.machines.parse(workspace);
      return { name: ref.machine, label: `${workspace.slice(0, workspace.indexOf(":"))} (no longer in the config)`, path: workspace.slice(workspace.indexOf(":") + 1) };
    }
  }

  async resolve(nameOrPath: string): Promise<string> {
    const registeredName = [...this.registered].find(([, entry]) => entry.name === nameOrPath)?.[0];
    const named = this.named.get(nameOrPath) ?? registeredName ?? (nameOrPath === "default" ? this.fallback : undefined);
    // A machine's name alone (`build`) means its first root.
    const text = named ?? (this.machines.names().includes(nameOrPath) ? `${nameOrPath}:` : nameOrPath);
    const ref = this.machines.parse(text);
    const onMachine = ref.machine !== LOCAL_MACHINE || text.startsWith(`${LOCAL_MACHINE}:`);
    if (!named && !onMachine && !isAbsolute(expandHome(ref.path))) {
      const names = this.list()
        .map((w) => w.name)
        .join(", ");
      throw new CommandError(`No workspace named "${nameOrPath}". Use one of: ${names}, an absolute path, or <machine>:<path>.`);
    }
    const machine = this.machines.get(ref.machine)!;
    const where = machine.name === LOCAL_MACHINE ? "" : ` on ${machine.name}`;
    let dir: string | undefined;
    if (ref.path === "") dir = (await machine.roots())[0];
    else if (onMachine && !ref.path.startsWith("/") && !ref.path.startsWith("~")) {
      // `build:api`: a directory of that name under one of the machine's roots.
      for (const root of await machine.roots()) if ((dir = await machine.directory(posix.join(root, ref.path)))) break;
    } else dir = await machine.directory(ref.path);
    if (!dir) throw new CommandError(`\`${ref.path || "(no root)"}\` is not an existing directory${where}.`);
    return this.requireAllowed(this.machines.format(machine.name, dir));
  }

  /** An existing directory an agent may run in, canonical; else a CommandError saying why not. */
  async requireAllowed(workspace: string): Promise<string> {
    const { machine } = this.locateInput(workspace);
    const where = machine.name === LOCAL_MACHINE ? "" : ` on ${machine.name}`;
    const dir = await this.directory(workspace);
    if (!dir) throw new CommandError(`\`${workspace}\` is not an existing directory${where}.`);
    if (!(await this.isAllowed(dir))) {
      const key = machine.name === LOCAL_MACHINE ? "workspaces.roots" : `machines.${machine.name}.roots`;
      throw new CommandError(`\`${dir}\` is outside the allowed workspace roots${where} (${machine.configuredRoots.join(", ")}). Add it to ${key} in the config.`);
    }
    return dir;
  }

  /** A workspace the user typed: an unknown `name:` prefix is part of a local path, not a machine. */
  private locateInput(workspace: string) {
    const ref = this.machines.parse(workspace);
    return { machine: this.machines.get(ref.machine)!, path: ref.path };
  }
}

function isInside(dir: string, root: string): boolean {
  const rel = relative(root, dir);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

function isInsidePosix(dir: string, root: string): boolean {
  const rel = posix.relative(root, dir);
  return rel === "" || (!rel.startsWith("..") && !posix.isAbsolute(rel));
}
