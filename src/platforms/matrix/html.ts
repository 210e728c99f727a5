// Markdown → the HTML of a Matrix `formatted_body`. Placeholder until the shared sanitising renderer
// (render/html.ts, `matrix` profile) is on main: until then messages go as plain text.
export function markdownToMatrixHtml(_markdown: string): string | undefined {
  return undefined;
}
