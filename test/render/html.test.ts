// The shared markdown → HTML renderer, both profiles. Output is checked the way a browser (or a
// Matrix client) reads it: parsed by an HTML5 parser in a <div>, then every element and attribute
// held against an allow-list written here from what the page and the Matrix spec allow, apart from
// the renderer's own schema (so a too-wide schema fails here instead of passing by construction).
import { defaultTreeAdapter, html as htmlSpec, parseFragment, serialize, type DefaultTreeAdapterMap } from "parse5";
import { describe, expect, it } from "vitest";
import { inlineMarkdownToHtml, markdownToHtml, type HtmlProfile } from "../../src/render/html.js";
import { HTML_SCHEMAS } from "../../src/render/html-renderer.js";
import { XSS_VECTORS } from "./xss-vectors.js";

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

/** Tags and attributes the Matrix spec lets a client show in `formatted_body` (m.room.message). */
const MATRIX_SPEC_TAGS = new Set([
  "font",
  "del",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "blockquote",
  "p",
  "a",
  "ul",
  "ol",
  "sup",
  "sub",
  "li",
  "b",
  "i",
  "u",
  "strong",
  "em",
  "strike",
  "s",
  "code",
  "hr",
  "br",
  "div",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "caption",
  "pre",
  "span",
  "img",
  "details",
  "summary",
]);
const MATRIX_SPEC_ATTRIBUTES: Record<string, string[]> = {
  font: ["data-mx-bg-color", "data-mx-color", "color"],
  span: ["data-mx-bg-color", "data-mx-color", "data-mx-spoiler", "data-mx-maths"],
  a: ["target", "href"],
  img: ["width", "height", "alt", "title", "src"],
  ol: ["start"],
  code: ["class"],
  div: ["data-mx-maths"],
};

const ALLOWED: Record<HtmlProfile, { tags: Set<string>; attributes: Record<string, string[]>; classes: RegExp }> = {
  web: {
    tags: new Set([
      "a",
      "blockquote",
      "br",
      "code",
      "del",
      "div",
      "em",
      "h1",
      "h2",
      "h3",
      "h4",
      "h5",
      "h6",
      "hr",
      "li",
      "ol",
      "p",
      "pre",
      "span",
      "strong",
      "sup",
      "table",
      "tbody",
      "td",
      "th",
      "thead",
      "tr",
      "ul",
    ]),
    attributes: { a: ["href", "target", "rel"], ol: ["start"], "*": ["class"] },
    classes: /^(language-[\w+#.-]+|code|code-lang|table|footnote|task-item|task|task-done|align-(left|center|right))$/,
  },
  matrix: {
    // Narrower than the spec: no <img> (only mxc: images are allowed there), no colours, no spoilers.
    tags: new Set([...MATRIX_SPEC_TAGS].filter((tag) => !["img", "font", "span"].includes(tag))),
    attributes: { a: ["href"], ol: ["start"], code: ["class"] },
    classes: /^language-[\w+#.-]+$/,
  },
};
const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/** Parses like `div.innerHTML = html` does. */
function parse(html: string) {
  const context = defaultTreeAdapter.createElement("div", htmlSpec.NS.HTML, []);
  return parseFragment(context, html, {});
}

function elements(node: Node): Element[] {
  const own = "tagName" in node ? [node as Element] : [];
  const children = "childNodes" in node ? node.childNodes : [];
  return [...own, ...children.flatMap((child) => elements(child))];
}

function textOf(node: Node): string {
  if (node.nodeName === "#text") return (node as DefaultTreeAdapterMap["textNode"]).value;
  return "childNodes" in node ? node.childNodes.map(textOf).join("") : "";
}

/** Everything wrong with one rendered output, as readable lines (empty when safe). */
function problems(html: string, profile: HtmlProfile): string[] {
  const allowed = ALLOWED[profile];
  const found: string[] = [];
  const fragment = parse(html);
  // Serialising what the browser parsed and parsing again must not change it (no mutation XSS).
  const once = serialize(fragment);
  if (serialize(parse(once)) !== once) found.push(`unstable under re-parsing: ${once}`);
  for (const el of elements(fragment)) {
    if (el.namespaceURI !== htmlSpec.NS.HTML) found.push(`foreign element <${el.tagName}>`);
    if (!allowed.tags.has(el.tagName)) found.push(`tag <${el.tagName}>`);
    for (const { name, value } of el.attrs) {
      const permitted = [...(allowed.attributes[el.tagName] ?? []), ...(allowed.attributes["*"] ?? [])];
      if (!permitted.includes(name)) found.push(`attribute ${name} on <${el.tagName}>`);
      if (name === "class" && !value.split(/\s+/).every((c) => allowed.classes.test(c))) found.push(`class "${value}"`);
      if (name === "href") {
        // The WHATWG URL parser strips what browsers strip (controls, tabs, newlines) before the scheme.
        const scheme = new URL(value, "https://relative.invalid/").protocol;
        if (!SAFE_SCHEMES.has(scheme) || value.startsWith("/")) found.push(`href ${value}`);
      }
    }
  }
  return found;
}

const PROFILES: HtmlProfile[] = ["web", "matrix"];

describe("markdown → HTML: the usual XSS vectors, both profiles", () => {
  for (const profile of PROFILES) {
    it.each(XSS_VECTORS)(`${profile}: $name`, (vector) => {
      const html = markdownToHtml(vector.markdown, { profile });
      expect(problems(html, profile), html).toEqual([]);
      const fragment = parse(html);
      if (vector.shows !== undefined) expect(textOf(fragment), html).toContain(vector.shows);
      if (vector.anchors !== undefined)
        expect(
          elements(fragment).filter((e) => e.tagName === "a"),
          html,
        ).toHaveLength(vector.anchors);
    });
  }

  it("the checker itself catches what it must (a checker that finds nothing proves nothing)", () => {
    expect(problems('<img src=x onerror="alert(1)">', "web")).toEqual(expect.arrayContaining(["tag <img>", "attribute src on <img>", "attribute onerror on <img>"]));
    expect(problems('<a href=" JaVa&#x09;Script:alert(1)">x</a>', "web")).toHaveLength(1);
    expect(problems('<a href="/local">x</a><p style="color:red">', "web")).toEqual(["href /local", "attribute style on <p>"]);
    expect(problems("<svg><a></a></svg>", "web")).toEqual(expect.arrayContaining(["foreign element <svg>"]));
    expect(problems('<div class="code"></div><a href="https://x" target="_blank">', "matrix")).toEqual(["attribute class on <div>", 'class "code"', "attribute target on <a>"]);
  });
});

const RICH = [
  "# Title",
  'Some **bold**, _em_, ~~gone~~, `code`, a [link](https://example.com "t") and www.example.org.',
  "second line",
  "",
  "- [x] done",
  "- [ ] open",
  "",
  "3. three",
  "4. four",
  "",
  "| a | b |",
  "|:--|:-:|",
  "| 1 | 2 |",
  "",
  "```c++",
  "int main() { return 0 < 1; }",
  "```",
  "",
  "> quoted",
  "",
  "---",
  "![diagram](https://example.com/d.png) and a note[^n].",
  "",
  "[^n]: the note.",
].join("\n");

describe("markdown → HTML: what each profile emits", () => {
  it("web: the page's markup (code frames, table scroller, task boxes, alignment classes, links in a new tab)", () => {
    const html = markdownToHtml(RICH, { profile: "web" });
    expect(problems(html, "web")).toEqual([]);
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toContain("<strong>bold</strong>, <em>em</em>, <del>gone</del>, <code>code</code>");
    expect(html).toContain('<a href="https://example.com" target="_blank" rel="noopener noreferrer">link</a>');
    expect(html).toContain('<a href="http://www.example.org" target="_blank" rel="noopener noreferrer">www.example.org</a>.<br>second line');
    expect(html).toContain('<ul><li class="task-item"><span class="task task-done"></span>done</li><li class="task-item"><span class="task"></span>open</li></ul>');
    expect(html).toContain('<ol start="3"><li>three</li><li>four</li></ol>');
    expect(html).toContain(
      '<div class="table"><table><thead><tr><th class="align-left">a</th><th class="align-center">b</th></tr></thead><tbody><tr><td class="align-left">1</td><td class="align-center">2</td></tr></tbody></table></div>',
    );
    expect(html).toContain('<div class="code"><div class="code-lang">c++</div><pre><code class="language-c++">int main() { return 0 &lt; 1; }</code></pre></div>');
    expect(html).toContain("<blockquote><p>quoted</p></blockquote><hr>");
    expect(html).toContain('<a href="https://example.com/d.png" target="_blank" rel="noopener noreferrer">diagram</a> and a note<sup>n</sup>.');
    expect(html).toContain('<div class="footnote"><p><sup>n</sup> the note.</p></div>');
    expect(html).not.toContain("<img");
  });

  it("matrix: only tags and attributes the Matrix spec allows, tasks as marks, no classes but the language", () => {
    const html = markdownToHtml(RICH, { profile: "matrix" });
    expect(problems(html, "matrix")).toEqual([]);
    expect(html).toContain('<a href="https://example.com">link</a>');
    expect(html).toContain("<ul><li>☑ done</li><li>☐ open</li></ul>");
    expect(html).toContain('<ol start="3">');
    expect(html).toContain("<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>");
    expect(html).toContain('<pre><code class="language-c++">int main() { return 0 &lt; 1; }</code></pre>');
    expect(html).toContain('<a href="https://example.com/d.png">diagram</a>');
    expect(html).toContain("<div><p><sup>n</sup> the note.</p></div>");
    expect(html).not.toMatch(/<img|<span|<input|target=|rel=|class="(?!language-)/);
  });

  it("each profile's schema is the default (GitHub) one narrowed: every tag it allows is one GitHub and the profile allow", () => {
    for (const profile of PROFILES) {
      const tags = HTML_SCHEMAS[profile].tagNames ?? [];
      expect(
        tags.filter((tag) => !ALLOWED[profile].tags.has(tag)),
        profile,
      ).toEqual([]);
      expect(HTML_SCHEMAS[profile].protocols).toEqual({ href: ["http", "https", "mailto"] });
      expect(HTML_SCHEMAS[profile].clobber).toEqual([]);
      expect(HTML_SCHEMAS[profile].required).toEqual({});
    }
    expect(HTML_SCHEMAS.matrix.tagNames!.filter((tag) => !MATRIX_SPEC_TAGS.has(tag))).toEqual([]);
    // Every attribute the Matrix profile keeps is one the spec allows on that tag (hast's className is HTML's class).
    const kept = Object.entries(HTML_SCHEMAS.matrix.attributes ?? {}).flatMap(([tag, attrs]) => attrs.map((a) => [tag, (typeof a === "string" ? a : a[0]).replace("className", "class")] as const));
    expect(kept.filter(([tag, attr]) => !MATRIX_SPEC_ATTRIBUTES[tag]?.includes(attr))).toEqual([]);
  });

  it("links: http(s) and mailto stay, percent-encoded, scheme case folded; anything else is text", () => {
    const html = markdownToHtml("[a](HTTPS://Example.com/a b) <mailto:ops@example.com> [c](ftp://x.example) [d](/local) [e](#top) ops@example.org", { profile: "matrix" });
    expect(html).toBe(
      '<p>[a](<a href="https://Example.com/a">HTTPS://Example.com/a</a> b) <a href="mailto:ops@example.com">mailto:ops@example.com</a> c d e <a href="mailto:ops@example.org">ops@example.org</a></p>',
    );
    expect(markdownToHtml('[q](<https://x.example/a b"c>)', { profile: "matrix" })).toBe('<p><a href="https://x.example/a%20b%22c">q</a></p>');
  });

  it("inline rendering drops the paragraph, and only a single paragraph", () => {
    expect(inlineMarkdownToHtml("Run `npm test` <now>", { profile: "web" })).toBe("Run <code>npm test</code> &lt;now>");
    expect(inlineMarkdownToHtml("a\n\nb", { profile: "matrix" })).toBe("<p>a</p><p>b</p>");
  });
});
