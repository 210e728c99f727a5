// The import rule: layers point one way. A small shared kernel imports nothing of ours; `bot/`
// only wires (nothing imports it); platforms and agents know nothing of each other; one platform
// adapter never imports another. The graph is read from the sources, type imports included
// (they couple layers as much as value imports do).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");

/** What each top-level folder of src/ may import (besides itself and npm packages). */
const ALLOWED: Record<string, string[]> = {
  kernel: [],
  threads: ["kernel"],
  store: ["kernel", "threads", "platforms"],
  render: ["kernel"],
  agents: ["kernel", "threads"],
  platforms: ["kernel", "render"],
  config: ["kernel", "platforms"],
  commands: ["kernel", "threads", "agents", "platforms", "render"],
  handoff: ["kernel", "agents", "config"],
  core: ["kernel", "threads", "agents", "platforms", "render", "commands", "config", "handoff"],
  // The daemon's surfaces over the core: the MCP endpoint, then /pickup (the core knows neither).
  mcp: ["kernel", "agents", "core", "handoff"],
  pickup: ["kernel", "threads", "agents", "commands", "config", "core", "mcp", "handoff"],
  ops: ["kernel", "platforms"],
  bot: ["kernel", "threads", "store", "agents", "platforms", "render", "commands", "config", "mcp", "handoff", "pickup", "core", "ops"],
};

/**
 * Files a lower layer may import although their folder sits higher. Each imports nothing of ours
 * but the kernel (checked below), so the graph stays one-way file by file. The subagent records
 * (their events, the schema replay checks them against, the listing replay builds) are what the
 * thread store persists; they live with the rest of the subagents in core/subagents/ so that a
 * subagent is one folder, and the thread store reaches down to them only.
 */
const LEAVES: Record<string, string[]> = { "core/subagents/records.ts": ["threads"] };

/** Files of platforms/ every adapter may use: the contract and the shared kit. */
const PLATFORM_SHARED = /^platforms\/(contract\.ts|registry\.ts|kit\/)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']|\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

interface ImportEdge {
  from: string;
  to: string;
}

function importEdges(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = (match[1] ?? match[2]).replace(/\.js$/, ".ts");
      edges.push({ from: relative(SRC, file), to: relative(SRC, resolve(dirname(file), spec)) });
    }
  }
  return edges;
}

const layerOf = (path: string) => path.split("/")[0];
/** `platforms/telegram/x.ts` → `telegram`; shared platform files → undefined. */
const adapterOf = (path: string) => (path.startsWith("platforms/") && !PLATFORM_SHARED.test(path) ? path.split("/")[1] : undefined);

/** The layer table, bottom layer first: what each layer may import and what it does import now. */
function layerTable(edges: ImportEdge[]): string {
  const used = new Map<string, Set<string>>();
  for (const e of edges) {
    const [from, to] = [layerOf(e.from), layerOf(e.to)];
    if (from !== to) used.set(from, (used.get(from) ?? new Set()).add(to));
  }
  // Bottom first: each layer after every layer it may import.
  const order: string[] = [];
  const place = (layer: string): void => {
    if (order.includes(layer)) return;
    for (const below of ALLOWED[layer]) place(below);
    order.push(layer);
  };
  for (const layer of Object.keys(ALLOWED)) place(layer);
  const rows = order.map((layer) => {
    const allowed = ALLOWED[layer];
    const unused = allowed.filter((l) => !used.get(layer)?.has(l));
    return `| ${layer} | ${allowed.join(", ") || "(nothing)"} | ${unused.join(", ") || "-"} |`;
  });
  return ["| layer | may import | allowed but unused |", "|---|---|---|", ...rows].join("\n");
}

describe("import rule", () => {
  const edges = importEdges();

  it("prints the layer table (bottom layer first)", () => {
    const table = layerTable(edges);
    console.log(`Layer table of src/ (each layer imports only the ones listed):\n${table}`);
    expect(table.split("\n")).toHaveLength(Object.keys(ALLOWED).length + 2);
  });

  it("reads a realistic graph (a broken parser must not pass by finding nothing)", () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual({ from: "bot/daemon.ts", to: "core/core.ts" });
  });

  it("every top-level folder is a known layer", () => {
    const layers = new Set(sourceFiles(SRC).map((f) => layerOf(relative(SRC, f))));
    expect([...layers].filter((l) => !(l in ALLOWED))).toEqual([]);
  });

  it("no import runs against the layer order", () => {
    const wrong = edges.filter((e) => {
      const from = layerOf(e.from);
      const to = layerOf(e.to);
      return from !== to && !ALLOWED[from]?.includes(to) && !LEAVES[e.to]?.includes(from);
    });
    expect(wrong.map((e) => `${e.from} → ${e.to}`)).toEqual([]);
  });

  it("a leaf lower layers may import imports nothing of ours but the kernel", () => {
    for (const leaf of Object.keys(LEAVES)) expect(edges.some((e) => e.to === leaf)).toBe(true);
    const wrong = edges.filter((e) => e.from in LEAVES && layerOf(e.to) !== "kernel");
    expect(wrong.map((e) => `${e.from} → ${e.to}`)).toEqual([]);
  });

  it("one platform adapter never imports another", () => {
    const wrong = edges.filter((e) => {
      const from = adapterOf(e.from);
      const to = adapterOf(e.to);
      return from !== undefined && to !== undefined && from !== to;
    });
    expect(wrong.map((e) => `${e.from} → ${e.to}`)).toEqual([]);
  });

  it("the layer table itself has no cycle", () => {
    const visiting = new Set<string>();
    const done = new Set<string>();
    const cycle: string[] = [];
    const visit = (layer: string, path: string[]): void => {
      if (done.has(layer)) return;
      if (visiting.has(layer)) {
        cycle.push([...path, layer].join(" → "));
        return;
      }
      visiting.add(layer);
      for (const next of ALLOWED[layer]) visit(next, [...path, layer]);
      visiting.delete(layer);
      done.add(layer);
    };
    for (const layer of Object.keys(ALLOWED)) visit(layer, []);
    expect(cycle).toEqual([]);
  });
});
