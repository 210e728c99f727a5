// Loads the one YAML config file: finds it, interpolates ${ENV}, validates with zod, and turns
// every mistake into a ConfigError that names the key path and the line.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { LineCounter, parseDocument, isNode, type Document } from "yaml";
import type { z } from "zod";
import { ConfigError } from "../kernel/errors.js";
import { expandHome } from "../kernel/paths.js";
import { configSchema, platformKindOf, type BatonConfig } from "./schema.js";
import { isRecordAt, sectionsWithKey, suggestKey } from "./suggest.js";
import { describeYamlError } from "./yaml-errors.js";
import { PLATFORM_KINDS } from "../platforms/registry.js";

export interface LoadedConfig {
  config: BatonConfig;
  /** The file it came from; undefined for the embedded default. */
  path?: string;
  /** Validated platform sections by instance name, with their kind. */
  platforms: Array<{ name: string; kind: string; config: Record<string, unknown> }>;
}

export interface ConfigLocation {
  flag?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** `--config`, else BATON_CONFIG, else ./baton.yaml, else ~/.config/baton/config.yaml, else none. */
export function findConfigFile({ flag, env = process.env, cwd = process.cwd() }: ConfigLocation): string | undefined {
  if (flag) return resolve(cwd, flag);
  if (env.BATON_CONFIG) return resolve(cwd, env.BATON_CONFIG);
  for (const candidate of [resolve(cwd, "baton.yaml"), resolve(homedir(), ".config/baton/config.yaml")]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** `--data-dir`, else BATON_DATA_DIR, else the config's data_dir, else ~/.baton. */
export function resolveDataDir(flag: string | undefined, loaded: LoadedConfig | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? env.BATON_DATA_DIR ?? loaded?.config.data_dir ?? resolve(homedir(), ".baton");
  return resolve(expandHome(chosen));
}

/**
 * The data dir for a CLI command that talks to a daemon (`baton mcp`, `status`, `reload`): a config
 * that does not load falls back to the flags and the default, so the command can still say what is wrong.
 */
export function dataDirForCli(flags: { config?: string; dataDir?: string }): string {
  let loaded: LoadedConfig | undefined;
  try {
    loaded = loadConfigOrDefault(flags.config);
  } catch {
    loaded = undefined;
  }
  return resolveDataDir(flags.dataDir, loaded);
}

/** The config file found by the usual lookup, else the embedded default. */
export function loadConfigOrDefault(flag: string | undefined): LoadedConfig {
  const path = findConfigFile({ flag });
  return path ? loadConfigFile(path) : defaultConfig();
}

export { expandHome } from "../kernel/paths.js";

export function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read the config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return parseConfigText(text, path, env);
}

export function parseConfigText(text: string, source: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const where = (path: PropertyKey[]) => `${source}:${lineOf(doc, lines, path)}`;
  if (doc.errors.length > 0) {
    const problem = describeYamlError(doc.errors[0], text, lines);
    throw new ConfigError(`${source}:${problem.line}: ${problem.message}`);
  }
  const raw = normalizeListenKeys(interpolateConfig(doc.toJS() ?? {}, env, where));
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw zodToConfigError(parsed.error, [], where, configSchema, raw);
  const config = parsed.data;

  const platforms: LoadedConfig["platforms"] = [];
  for (const [name, section] of Object.entries(config.platforms)) {
    const kind = platformKindOf(name, section);
    if (!kind) {
      const kinds = Object.keys(PLATFORM_KINDS).join(", ");
      throw new ConfigError(`${where(["platforms", name])}: platforms.${name}: unknown platform; name it after a kind (${kinds}) or add kind: <one of them>`);
    }
    const result = PLATFORM_KINDS[kind].schema.safeParse(section);
    if (!result.success) throw zodToConfigError(result.error, ["platforms", name], where, PLATFORM_KINDS[kind].schema, raw);
    const value = result.data as Record<string, unknown>;
    if (value.enabled !== false) platforms.push({ name, kind, config: value });
  }
  return { config, path: source, platforms };
}

/** The embedded default: web chat on loopback, first installed agent (else demo). */
export function defaultConfig(): LoadedConfig {
  const config = configSchema.parse({ platforms: { web: {} } });
  return { config, platforms: [{ name: "web", kind: "web", config: PLATFORM_KINDS.web.schema.parse({}) as Record<string, unknown> }] };
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
type Where = (p: PropertyKey[]) => string;

/**
 * `${VAR}` is required only where it is used: inside a platform section marked `enabled: false` an
 * unset variable stays as written (the section is still checked for unknown keys), so the example
 * config copied as it is validates with no environment set.
 */
function interpolateConfig(raw: unknown, env: NodeJS.ProcessEnv, where: Where): unknown {
  if (!isRecord(raw)) return interpolate(raw, [], env, where, false);
  // A section whose keys are all commented out (`ops:` alone) is YAML null: it means the defaults.
  const { platforms, ...rest } = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null));
  const out = interpolate(rest, [], env, where, false) as Record<string, unknown>;
  if (platforms === undefined) return out;
  if (!isRecord(platforms)) return { ...out, platforms };
  const sections: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(platforms)) {
    const section = value ?? {};
    const path = ["platforms", name];
    const enabled = isRecord(section) ? interpolate(section.enabled, [...path, "enabled"], env, where, false) : undefined;
    sections[name] = interpolate(section, path, env, where, enabled === false);
  }
  return { ...out, platforms: sections };
}

function interpolate(value: unknown, path: PropertyKey[], env: NodeJS.ProcessEnv, where: Where, lenient: boolean): unknown {
  if (typeof value === "string") {
    return value.replace(ENV_REF, (match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== "") return found;
      if (fallback !== undefined) return fallback;
      if (lenient) return match;
      throw new ConfigError(`${where(path)}: ${formatPath(path)}: environment variable ${name} is not set (use \${${name}:-default} for a default)`);
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, [...path, i], env, where, lenient));
  if (isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, [...path, k], env, where, lenient)]));
  }
  return value;
}

/** A listen key may be a bare port (`listen: 8787`, a YAML number): every one becomes the string form. */
function normalizeListenKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeListenKeys);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, (k === "listen" || k.endsWith("_listen")) && typeof v === "number" ? String(v) : normalizeListenKeys(v)]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

function zodToConfigError(error: z.ZodError, prefix: PropertyKey[], where: Where, schema: z.ZodType, raw: unknown): ConfigError {
  // A typo in a key name usually also makes a required key "missing": name the typo first.
  const issue = error.issues.find((i) => i.code === "unrecognized_keys") ?? error.issues[0];
  let path = [...prefix, ...issue.path];
  let message = issue.message;
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0];
    path = [...path, key];
    message = unknownKeyMessage(schema, issue.path, key, formatPath([...prefix, ...issue.path]));
  } else if (issue.code === "invalid_type") {
    message = wrongTypeMessage(issue.expected, path, raw);
  }
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : "";
  return new ConfigError(`${where(path)}: ${formatPath(path) || "(top level)"}: ${message}${more}`);
}

function unknownKeyMessage(schema: z.ZodType, at: PropertyKey[], key: string, section: string): string {
  const guess = suggestKey(schema, at, key);
  if (guess) return `unknown key "${key}" (did you mean "${guess}"?)`;
  // A key of another section, written at this level: say where it goes.
  const homes = sectionsWithKey(configSchema, key).filter((home) => home !== section);
  return homes.length > 0
    ? `"${key}" does not go ${section ? `in ${section}` : "at the top level"}; it is a key of ${homes.slice(0, 2).join(" or ")} (indent it under that section)`
    : `unknown key "${key}"`;
}

const EXPECTED_WORDS: Record<string, string> = {
  object: "a section (keys indented under it)",
  record: "a section (keys indented under it)",
  array: "a list ([a, b], or `- item` lines)",
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
};

function describeValue(value: unknown): string {
  if (value === undefined || value === null) return "nothing";
  if (typeof value === "string") return `the text "${value.length > 40 ? `${value.slice(0, 37)}…` : value}"`;
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value === "number" ? "the number" : ""} ${value}`.trim();
  return Array.isArray(value) ? "a list" : "a section";
}

function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  return path.reduce<unknown>((v, step) => (isRecord(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[step] : undefined), raw);
}

/** "expected object, received string" in words; a setting one level too high is named as such. */
function wrongTypeMessage(expected: string, path: PropertyKey[], raw: unknown): string {
  const value = valueAt(raw, path);
  const wanted = EXPECTED_WORDS[expected] ?? expected;
  const key = path.at(-1);
  const parent = valueAt(raw, path.slice(0, -1));
  const sectionExpected = expected === "object" || expected === "record";
  if (sectionExpected && typeof key === "string" && isRecord(parent) && value !== null && typeof value !== "object" && isRecordAt(configSchema, path.slice(0, -1))) {
    // `platforms: { telegram: {…}, mode: polling }`: each key under platforms starts a section.
    const siblings = Object.keys(parent);
    const above = siblings
      .slice(0, siblings.indexOf(key))
      .reverse()
      .find((k) => isRecord(parent[k]));
    const hint = above ? `; if it is a setting of "${above}" (above it), indent it under "${above}"` : "";
    return `"${key}: ${String(value)}" sits directly under "${formatPath(path.slice(0, -1))}", where each key starts a section of its own${hint}`;
  }
  return `expected ${wanted}, got ${describeValue(value)}`;
}

function formatPath(path: PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

/** Line of the deepest node that exists along `path` (a missing key points at its parent). */
function lineOf(doc: Document, lines: LineCounter, path: PropertyKey[]): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth) as (string | number)[], true);
    if (isNode(node) && node.range) {
      // For a map entry, point at the key's line rather than its value's.
      const parent = depth > 0 ? doc.getIn(path.slice(0, depth - 1) as (string | number)[], true) : undefined;
      const keyNode = parent && isNode(parent) && "items" in parent ? findKeyNode(parent, path[depth - 1]) : undefined;
      const offset = keyNode?.range?.[0] ?? node.range[0];
      return lines.linePos(offset).line;
    }
  }
  return 1;
}

function findKeyNode(map: object, key: PropertyKey): { range?: [number, number, number] } | undefined {
  const items = (map as { items: Array<{ key?: { value?: unknown; range?: [number, number, number] } }> }).items;
  return items.find((pair) => pair.key && pair.key.value === key)?.key;
}
