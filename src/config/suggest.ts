// "Did you mean": the known key closest to a mistyped one, read from the zod schema at that path.
import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";

/** Past this many edits a "suggestion" is a guess, not a typo fix. */
const MAX_EDITS = 3;

interface ZodDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  valueType?: z.ZodType;
}

const defOf = (schema: z.ZodType): ZodDef => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** Unwraps defaults, optionals and transforms down to the object (or record) underneath. */
function unwrap(schema: z.ZodType): z.ZodType {
  for (let s = schema; ; ) {
    const def = defOf(s);
    const inner = def.type === "default" || def.type === "optional" || def.type === "nullable" || def.type === "prefault" ? def.innerType : def.type === "pipe" ? def.in : undefined;
    if (!inner) return s;
    s = inner;
  }
}

/** Keys the schema knows at `path` (record keys are skipped: any name is fine there). */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current = unwrap(schema);
  for (const step of path) {
    const def = defOf(current);
    if (def.type === "object" && def.shape && typeof step === "string" && def.shape[step]) current = unwrap(def.shape[step]);
    else if (def.type === "record" && def.valueType) current = unwrap(def.valueType);
    else return [];
  }
  const def = defOf(current);
  return def.type === "object" && def.shape ? Object.keys(def.shape) : [];
}

export function suggestKey(schema: z.ZodType, path: readonly PropertyKey[], key: string): string | undefined {
  const keys = knownKeys(schema, path);
  if (keys.length === 0) return undefined;
  const best = closest(key, keys);
  return distance(key, best) <= Math.min(MAX_EDITS, Math.max(1, Math.floor(best.length / 2))) ? best : undefined;
}

/** The sections (dotted paths) whose schema has `key`, for a key written at the wrong level. */
export function sectionsWithKey(schema: z.ZodType, key: string, path: string[] = [], depth = 3): string[] {
  const def = defOf(unwrap(schema));
  if (def.type !== "object" || !def.shape) return [];
  const here = path.length > 0 && key in def.shape ? [path.join(".")] : [];
  if (depth === 0) return here;
  return [...here, ...Object.entries(def.shape).flatMap(([name, inner]) => sectionsWithKey(inner, key, [...path, name], depth - 1))];
}

/** Whether the schema at `path` is a record: every key under it names a section of its own (`platforms`). */
export function isRecordAt(schema: z.ZodType, path: readonly PropertyKey[]): boolean {
  let current = unwrap(schema);
  for (const step of path) {
    const def = defOf(current);
    if (def.type === "object" && def.shape && typeof step === "string" && def.shape[step]) current = unwrap(def.shape[step]);
    else if (def.type === "record" && def.valueType) current = unwrap(def.valueType);
    else return false;
  }
  return defOf(current).type === "record";
}
