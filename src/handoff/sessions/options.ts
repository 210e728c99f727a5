// What `baton handoff list | export | resume` share: the store flags, output, and errors. Kept apart
// from the actions so `list` loads only what it needs.

import path from "node:path";
import type { Command } from "commander";
import { BatonError } from "../../kernel/errors.js";
import type { StoreOptions } from "../../agents/stores/index.js";
import { PRODUCTS } from "../../agents/products/index.js";

export interface StoreFlags {
  harness?: string;
  storeDir?: string[];
  dataDir?: string;
  /** A product's own location flag (`--codex-dir` → codexDir). */
  [dirFlag: string]: string | string[] | undefined;
}

/** commander's name for `--some-flag`'s value: someFlag. */
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Store options from the shared flags; each `--*-dir` wins over `--store-dir` for its runtime. */
export function storeOptions(flags: StoreFlags): StoreOptions {
  const storeDirs: Record<string, string> = {};
  for (const pair of flags.storeDir ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0 || eq === pair.length - 1) throw new BatonError(`--store-dir takes <runtime>=<path>, not "${pair}".`);
    storeDirs[pair.slice(0, eq)] = path.resolve(pair.slice(eq + 1));
  }
  for (const p of PRODUCTS) {
    const dir = p.store?.dirFlag && flags[camel(p.store.dirFlag.name)];
    if (typeof dir === "string") storeDirs[p.id] = path.resolve(dir);
  }
  return { runtime: flags.harness, storeDirs, ...(flags.dataDir ? { dataDir: path.resolve(flags.dataDir) } : {}) };
}

/** The subcommand's flags over the main CLI's global ones (`baton --data-dir D handoff …`). */
export function withGlobals<T extends object>(opts: T, cmd: Command): T {
  return { ...(cmd.optsWithGlobals() as object), ...opts } as T;
}

export function out(cmd: Command, text: string): void {
  cmd.configureOutput().writeOut?.(text.endsWith("\n") ? text : `${text}\n`);
}

export function errOut(cmd: Command, text: string): void {
  cmd.configureOutput().writeErr?.(text.endsWith("\n") ? text : `${text}\n`);
}

/** Runs an action, turning a BatonError into a short message and exit code 1. */
export async function guarded(cmd: Command, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof BatonError) cmd.error(err.userMessage, { exitCode: 1, code: "baton.handoff" });
    throw err;
  }
}
