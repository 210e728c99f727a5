// The one markdown parser every dialect renders from: CommonMark + GFM (tables, strikethrough, task
// lists, footnotes, literal autolinks) into an mdast tree. Loaded through markdown.ts, never imported
// directly. markdown-it reads the text (a tenth of the time micromark took, which was most of
// Baton's CPU while answers streamed); mdast-from-tokens.ts nests its tokens into the tree. A
// streamed message parsed again with more text at its end reuses the blocks of the earlier parse
// that can no longer change (prefix-reuse.ts).
import MarkdownIt from "markdown-it";
import footnotes from "markdown-it-footnote";
import type { Root } from "mdast";
import { mdastFromTokens } from "./mdast-from-tokens.js";
import { PrefixReuse, type Parsed } from "./prefix-reuse.js";

export interface ParsedMarkdown {
  tree: Root;
}

/** Longest `www.` address looked for (each one copies what follows it). */
const MAX_ADDRESS_CHARS = 8_192;

const markdown = new MarkdownIt("default", { html: true, linkify: true }).use(footnotes).disable("footnote_inline");
// Destinations stay as written (decoded, not percent-encoded), and every one makes a link: each
// renderer escapes for its own format and keeps only the schemes it allows (a `javascript:` link
// shows as its label, not as the markdown that wrote it).
markdown.normalizeLink = (url) => url;
markdown.normalizeLinkText = (url) => url;
markdown.validateLink = () => true;
// GFM's literal autolinks: `http(s)://…`, `www.…` and e-mail addresses, not every `name.tld` (a
// coding agent's `README.md` and `index.ts` are file names, and `.md` and `.ts` are top-level domains).
markdown.linkify
  .set({ fuzzyLink: false })
  .add("ftp:", null)
  .add("//", null)
  .add("www.", {
    // The rest of an `http://` address, from the host on, as linkify-it reads one.
    validate: (text, pos, self) => {
      const http = (self.re as unknown as { get_http_validator(): RegExp }).get_http_validator();
      http.lastIndex = 0;
      const match = http.exec(`//www.${text.slice(pos, pos + MAX_ADDRESS_CHARS)}`);
      // `www.` alone, or `www.` before punctuation, is no address.
      return match && match[0].length > "//www.".length ? match[0].length - "//www.".length : 0;
    },
    normalize: (match) => {
      match.url = `http://${match.url}`;
    },
  });

/** A parse of the whole text, nothing reused. */
export function parseWhole(text: string): Parsed {
  const env: { references?: Record<string, never>; footnotes?: unknown } = {};
  const tree = mdastFromTokens(markdown.parse(text, env), text, markdown.utils.unescapeAll);
  return { tree, hasDefinitions: (env.references !== undefined && Object.keys(env.references).length > 0) || env.footnotes !== undefined };
}

const reuse = new PrefixReuse(parseWhole);

export function parseMarkdown(text: string): ParsedMarkdown {
  return { tree: reuse.parse(text).tree };
}
