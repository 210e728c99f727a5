// A GFM table as lines of padded monospace text, for dialects without tables (Discord, Slack,
// Telegram): the only way columns stay aligned is a code block.
import { toString as mdastToString } from "mdast-util-to-string";
import type { Table } from "mdast";

export function tableAsText(table: Table): string {
  const rows = table.children.map((row) => row.children.map((cell) => mdastToString(cell).trim()));
  const columnCount = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columnCount }, (_, column) => Math.max(1, ...rows.map((row) => (row[column] ?? "").length)));
  const lines = rows.map((row) =>
    widths
      .map((width, column) => (row[column] ?? "").padEnd(width))
      .join(" | ")
      .trimEnd(),
  );
  if (lines.length > 1) lines.splice(1, 0, widths.map((width) => "-".repeat(width)).join("-|-"));
  return lines.join("\n");
}
