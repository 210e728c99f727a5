// Roughly what a person sees of a Discord message: the markup Discord renders taken away (bold,
// italics, underline, strike, spoilers, code marks, heading and subtext markers, quote marks,
// masked links as their text, `<url>` as the URL, backslash escapes). Approximate by design: tests
// use it to read words, not to check Discord's renderer.
export function visibleText(content: string): string {
  return content
    .replace(/^```[^\n]*\n?|\n?```$/gm, "")
    .replace(/\[([^\]]*)\]\((https?:[^)\s]+)\)/g, "$1")
    .replace(/<(https?:[^>\s]+)>/g, "$1")
    .replace(/^(#{1,3}|-#|>) /gm, "")
    .replace(/(\*\*|__|~~|\|\||\*|`)/g, (marker, _m, offset: number, all: string) => (all[offset - 1] === "\\" ? marker : ""))
    .replace(/\\([^\sA-Za-z0-9])/g, "$1")
    .replace(/\u200b/g, "");
}
