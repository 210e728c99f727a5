// What `baton reload` (SIGHUP) does with each config key, said where the key is defined: every
// key of the config schema is wrapped in live(…) (the running daemon takes a new value at once)
// or restart(…) (bound to a listener, a file or a connection opened at start). An object whose
// keys differ (`log.level` live, `log.format` not) is left unwrapped and its keys are marked.
// reloadKeys() reads the marks back and refuses a schema with a key marked neither way, so a new
// key cannot be forgotten by the reload.
import { z } from "zod";

type ReloadMark = "live" | "restart";

/** The marks, kept apart from the schema's own metadata so they do not end up in its JSON Schema. */
const marks = z.registry<{ reload: ReloadMark }>();

/** A key a reload applies without a restart. */
export function live<T extends z.ZodType>(schema: T): T {
  marks.add(schema, { reload: "live" });
  return schema;
}

/** A key whose new value takes effect only after a restart. */
export function restart<T extends z.ZodType>(schema: T): T {
  marks.add(schema, { reload: "restart" });
  return schema;
}

export interface ReloadKey {
  /** Key path from the top of the config: ["log", "level"]. */
  path: string[];
  mark: ReloadMark;
}

/** `.default()`, `.optional()`, `.refine()`… around an object: the object inside. */
function objectInside(schema: z.ZodType): z.ZodObject | undefined {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 8; depth++) {
    if (current instanceof z.ZodObject) return current;
    const def = current.def as { innerType?: z.ZodType; in?: z.ZodType };
    const inner = def.innerType ?? def.in;
    if (!inner) return undefined;
    current = inner;
  }
  return undefined;
}

/** Every marked key of an object schema, depth first; throws naming each key marked neither way. */
export function reloadKeys(schema: z.ZodObject): ReloadKey[] {
  const found: ReloadKey[] = [];
  const unmarked: string[] = [];
  const walk = (object: z.ZodObject, path: string[]) => {
    for (const [key, child] of Object.entries(object.shape as Record<string, z.ZodType>)) {
      const at = [...path, key];
      const mark = marks.get(child)?.reload;
      if (mark) found.push({ path: at, mark });
      else {
        const inner = objectInside(child);
        if (inner) walk(inner, at);
        else unmarked.push(at.join("."));
      }
    }
  };
  walk(schema, []);
  if (unmarked.length > 0) throw new Error(`config keys marked neither live(…) nor restart(…) for reload: ${unmarked.join(", ")}`);
  return found;
}
