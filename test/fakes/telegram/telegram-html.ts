// The part of Telegram's HTML parse mode the fake checks: the tags Telegram supports, balanced,
// and `<`, `>`, `&` only as markup or entities. Enough to catch what a real server would reject;
// it does not check attribute values beyond `href` being present on <a>.

const SUPPORTED_TAGS = new Set(["b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a", "code", "pre", "blockquote", "tg-emoji"]);
const KNOWN_ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

export type HtmlCheck = { ok: true; text: string } | { ok: false; error: string };

/** Validates Telegram HTML and returns the visible text (what Telegram counts and shows). */
export function parseTelegramHtml(html: string): HtmlCheck {
  const stack: string[] = [];
  let text = "";
  let i = 0;
  while (i < html.length) {
    const char = html[i];
    if (char === "<") {
      const match = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*>/.exec(html.slice(i));
      if (!match) return { ok: false, error: `Bad Request: can't parse entities: Unexpected character "<" at byte offset ${i}` };
      const [whole, closing, rawName, attributes] = match;
      const name = rawName.toLowerCase();
      if (!SUPPORTED_TAGS.has(name)) return { ok: false, error: `Bad Request: can't parse entities: Unsupported start tag "${name}" at byte offset ${i}` };
      if (closing) {
        if (stack.pop() !== name) return { ok: false, error: `Bad Request: can't parse entities: Unmatched end tag at byte offset ${i}, expected "</${stack.at(-1) ?? ""}>", found "</${name}>"` };
      } else {
        if (name === "a" && !/href="[^"]+"/.test(attributes)) return { ok: false, error: `Bad Request: can't parse entities: Tag "a" must have attribute "href" at byte offset ${i}` };
        if (name === "blockquote" && stack.includes("blockquote")) return { ok: false, error: "Bad Request: can't parse entities: Nested blockquote entities are not supported" };
        stack.push(name);
      }
      i += whole.length;
    } else if (char === ">") {
      return { ok: false, error: `Bad Request: can't parse entities: Unexpected character ">" at byte offset ${i}` };
    } else if (char === "&") {
      const match = /^&(#\d+|#x[0-9a-fA-F]+|[a-z]+);/.exec(html.slice(i));
      if (!match) return { ok: false, error: `Bad Request: can't parse entities: Character "&" is reserved at byte offset ${i}` };
      const entity = match[1];
      if (entity.startsWith("#")) text += String.fromCodePoint(entity[1] === "x" ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
      else if (KNOWN_ENTITIES[entity] !== undefined) text += KNOWN_ENTITIES[entity];
      else return { ok: false, error: `Bad Request: can't parse entities: Unknown entity "${entity}"` };
      i += match[0].length;
    } else {
      text += char;
      i++;
    }
  }
  if (stack.length > 0) return { ok: false, error: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${stack.at(-1)}"` };
  return { ok: true, text };
}
