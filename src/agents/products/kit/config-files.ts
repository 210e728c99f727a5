// Editing an agent's own settings file without losing anything the user wrote: JSON with comments
// through jsonc-parser's edits, TOML by replacing only the lines of one table and checking the
// result with a real parser (smol-toml) before anything is written. A file that does not parse is
// never touched: the error says where it is wrong.
import { isDeepStrictEqual } from "node:util";
import { applyEdits, modify, parse as parseJsonc, printParseErrorCode, type ParseError } from "jsonc-parser";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { CommandError } from "../../../kernel/errors.js";

const JSONC_OPTIONS = { allowTrailingComma: true, disallowComments: false };

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

/** Sets `path` (e.g. mcpServers.baton) in a JSON-with-comments document; comments and other keys stay. */
export function setJsoncValue(text: string, file: string, path: string[], value: unknown): string {
  const source = text.trim() ? text : "{}\n";
  const errors: ParseError[] = [];
  const parsed: unknown = parseJsonc(source, errors, JSONC_OPTIONS);
  if (errors.length > 0) {
    const e = errors[0];
    throw new CommandError(`${file}:${lineOf(source, e.offset)}: not valid JSON (${printParseErrorCode(e.error)}); fix it, then run \`baton setup\` again. Nothing was changed.`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new CommandError(`${file}: expected a JSON object at the top; nothing was changed.`);
  const indent = /\n(\t| +)"/.exec(source)?.[1] ?? "  ";
  const edits = modify(source, path, value, { formattingOptions: { insertSpaces: indent !== "\t", tabSize: indent === "\t" ? 1 : indent.length, eol: "\n" } });
  const out = applyEdits(source, edits);
  return out.endsWith("\n") ? out : `${out}\n`;
}

const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/;

function tomlError(file: string, error: unknown): CommandError {
  const e = error as { line?: number; message?: string };
  return new CommandError(`${file}${e.line ? `:${e.line}` : ""}: not valid TOML (${(e.message ?? String(error)).split("\n")[0]}); fix it, then run \`baton setup\` again. Nothing was changed.`);
}

/** The end (exclusive) of the key/value that starts at `start`: up to where its brackets balance. */
function valueEnd(lines: string[], start: number): number {
  let depth = 0;
  for (let i = start; i < lines.length; i++) {
    for (const ch of lines[i].replace(/"(?:[^"\\]|\\.)*"|'[^']*'|#.*$/g, "")) {
      if (ch === "{" || ch === "[") depth++;
      if (ch === "}" || ch === "]") depth--;
    }
    if (depth <= 0) return i + 1;
  }
  return lines.length;
}

/**
 * Sets the table `[table.name]` (e.g. mcp_servers.baton) in a TOML document. Only the lines that
 * defined that entry change; an inline `table = { … }` is rewritten as one `[table.x]` per entry,
 * since TOML cannot extend an inline table. The result must parse and differ only in that entry.
 */
export function setTomlTable(text: string, file: string, table: string, name: string, value: Record<string, unknown>): string {
  let before: Record<string, unknown>;
  try {
    before = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw tomlError(file, error);
  }
  const lines = text.split("\n");
  const kept: string[] = [];
  const moved: Record<string, unknown> = {};
  const entry = `${table}.${name}`;
  const ownKey = new RegExp(`^\\s*${name}\\s*(=|\\.)`);
  const topKey = new RegExp(`^\\s*${table.replace(".", "\\.")}\\s*(=|\\.\\s*${name}\\s*(=|\\.))`);
  let section = "";
  // Comments at the end of the replaced table usually introduce the next one: they stay.
  let trailing: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const header = HEADER.exec(line);
    if (header) section = header[1];
    const inEntry = section === entry || section.startsWith(`${entry}.`);
    if (inEntry) {
      trailing = /^\s*(#.*)?$/.test(line) && !header ? [...trailing, line] : [];
      continue;
    }
    kept.push(...trailing);
    trailing = [];
    if (!header && ((section === table && ownKey.test(line)) || (section === "" && topKey.test(line)))) {
      const end = valueEnd(lines, i);
      if (section === "" && /^\s*[^.=\s]+\s*=/.test(line)) {
        // `table = { … }` inline: its other entries move to tables of their own below.
        Object.assign(moved, (before[table] as Record<string, unknown>) ?? {});
        delete moved[name];
      }
      i = end - 1;
      continue;
    }
    kept.push(line);
  }
  const rest = kept.join("\n").trimEnd();
  const tables = stringifyToml({ [table]: { ...moved, [name]: value } }).trim();
  const out = `${rest ? `${rest}\n\n` : ""}${tables}\n`;
  verifyToml(out, file, before, table, name, value, tables);
  return out;
}

function verifyToml(out: string, file: string, before: Record<string, unknown>, table: string, name: string, value: unknown, tables: string): void {
  // smol-toml builds objects without a prototype: compare plain copies.
  const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
  const without = (doc: Record<string, unknown>) => {
    const copy = plain(doc);
    const section = copy[table] as Record<string, unknown> | undefined;
    if (section) {
      delete section[name];
      if (Object.keys(section).length === 0) delete copy[table];
    }
    return copy;
  };
  let after: Record<string, unknown>;
  try {
    after = parseToml(out) as Record<string, unknown>;
  } catch {
    after = {};
  }
  const ok = isDeepStrictEqual(plain((after[table] as Record<string, unknown> | undefined)?.[name]), plain(value)) && isDeepStrictEqual(without(after), without(before));
  if (!ok) throw new CommandError(`${file}: Baton could not change this file safely, so it changed nothing. Add this yourself:\n${tables}`);
}
