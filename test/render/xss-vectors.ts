// The usual XSS vectors, as an agent (or text it quotes) could write them in markdown. Shared by the
// renderer's unit test (parsed as a browser would, then checked node by node) and the browser test
// (set as innerHTML in Chromium, where any script that runs calls alert() or makes a request).

export interface XssVector {
  name: string;
  markdown: string;
  /** Text the reader must still see (raw HTML is shown, not dropped). */
  shows?: string;
  /** How many links survive (each one http(s) or mailto). */
  anchors?: number;
}

export const XSS_VECTORS: XssVector[] = [
  // Script and event handlers as raw HTML.
  { name: "script tag", markdown: '<script>alert("x")</script>', shows: '<script>alert("x")</script>', anchors: 0 },
  { name: "upper-case script with src", markdown: "<SCRIPT SRC=//evil.example/x.js></SCRIPT>", shows: "<SCRIPT SRC=//evil.example/x.js></SCRIPT>", anchors: 0 },
  { name: "script inline in a paragraph", markdown: "Look: <script>alert(1)</script> done", shows: "<script>alert(1)</script>" },
  { name: "img onerror", markdown: "<img src=x onerror=alert(1)>", shows: "<img src=x onerror=alert(1)>" },
  { name: "body onload", markdown: "<body onload=alert(1)>", shows: "<body onload=alert(1)>" },
  { name: "div onclick", markdown: '<div onclick="alert(1)">click</div>', shows: '<div onclick="alert(1)">' },
  { name: "details ontoggle", markdown: "<details open ontoggle=alert(1)>x</details>", shows: "ontoggle=alert(1)" },
  { name: "iframe javascript src", markdown: '<iframe src="javascript:alert(1)"></iframe>', shows: "<iframe" },
  { name: "iframe srcdoc in a quote", markdown: '> <iframe srcdoc="<script>alert(1)</script>">', shows: "srcdoc=" },
  { name: "style tag", markdown: "<style>body{background:url(javascript:alert(1))}</style>", shows: "<style>" },
  { name: "raw anchor with javascript href", markdown: '<a href="javascript:alert(1)">x</a>', shows: '<a href="javascript:alert(1)">', anchors: 0 },
  { name: "meta refresh", markdown: '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">', shows: "<meta" },
  { name: "form action", markdown: '<form action="javascript:alert(1)"><button>go</button></form>', shows: "<form" },
  // SVG and MathML, where parsing rules change.
  { name: "svg onload", markdown: "<svg onload=alert(1)>", shows: "<svg onload=alert(1)>" },
  { name: "svg with script", markdown: "<svg><script>alert(1)</script></svg>", shows: "<svg><script>" },
  { name: "svg animate href", markdown: '<svg><a><animate attributeName="href" values="javascript:alert(1)"/><text y="20">x</text></a></svg>', shows: "<animate" },
  { name: "math mglyph style mutation", markdown: "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>", shows: "<mglyph>" },
  { name: "noscript mutation", markdown: '<noscript><p title="</noscript><img src=x onerror=alert(1)>">', shows: "<noscript>" },
  { name: "svg data url image", markdown: "![x](data:image/svg+xml,<svg onload=alert(1)>)", anchors: 0 },
  // Link schemes, mixed case, entity-encoded, with whitespace or control characters.
  { name: "javascript link", markdown: "[x](javascript:alert(1))", anchors: 0 },
  { name: "mixed-case javascript link", markdown: "[x](JaVaScRiPt:alert(1))", anchors: 0 },
  { name: "entity-encoded colon", markdown: "[x](javascript&#58;alert(1))", anchors: 0 },
  { name: "entity-encoded scheme (decimal)", markdown: "[x](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1))", anchors: 0 },
  { name: "entity-encoded scheme (hex)", markdown: "[x](&#x6A;&#x61;&#x76;&#x61;script&#x3A;alert(1))", anchors: 0 },
  { name: "named entity colon", markdown: "[x](javascript&colon;alert(1))", anchors: 0 },
  { name: "tab inside the scheme", markdown: "[x](<java\tscript:alert(1)>)", anchors: 0 },
  { name: "entity tab inside the scheme", markdown: "[x](java&#x09;script:alert(1))", anchors: 0 },
  { name: "newline entity inside the scheme", markdown: "[x](java&#10;script:alert(1))", anchors: 0 },
  { name: "leading control character", markdown: "[x](&#x01;javascript:alert(1))", anchors: 0 },
  { name: "escaped colon", markdown: "[x](javascript\\:alert(1))", anchors: 0 },
  { name: "data link", markdown: "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", anchors: 0 },
  { name: "upper-case data link", markdown: "[x](DATA:text/html,<script>alert(1)</script>)", anchors: 0 },
  { name: "vbscript link", markdown: "[x](vbscript:msgbox(1))", anchors: 0 },
  { name: "mixed-case vbscript link", markdown: "[x](VbScRiPt:msgbox(1))", anchors: 0 },
  { name: "file link", markdown: "[x](file:///etc/passwd)", anchors: 0 },
  { name: "protocol-relative link", markdown: "[x](//evil.example/x)", anchors: 0 },
  { name: "javascript autolink", markdown: "<javascript:alert(1)>", anchors: 0 },
  { name: "vbscript autolink", markdown: "<vbscript:msgbox(1)>", anchors: 0 },
  { name: "javascript reference definition", markdown: "[x][r]\n\n[r]: javascript:alert(1)", anchors: 0 },
  { name: "javascript image", markdown: "![x](javascript:alert(1))", anchors: 0 },
  { name: "javascript image reference", markdown: "![x][r]\n\n[r]: JAVASCRIPT:alert(1)", anchors: 0 },
  { name: "bare javascript text", markdown: "javascript:alert(1)", shows: "javascript:alert(1)", anchors: 0 },
  // Breaking out of an attribute.
  { name: "quote in a URL", markdown: '[x](https://ok.example/"onmouseover="alert(1))', anchors: 1 },
  { name: "quote in a title", markdown: '[x](https://ok.example/ "t\\" onmouseover=\\"alert(1)")', anchors: 1 },
  { name: "tag in an autolink", markdown: '<https://ok.example/"><script>alert(1)</script>>', anchors: 1 },
  { name: "tag after a literal www link", markdown: "www.ok.example/<script>alert(1)</script>", shows: "<script>alert(1)</script>", anchors: 1 },
  { name: "code language", markdown: '```"><img src=x onerror=alert(1)>\ncode\n```', shows: "code" },
  { name: "code language with quotes", markdown: '```js" onmouseover="alert(1)\nx\n```', shows: "x" },
  // Unclosed and broken tags.
  { name: "unclosed bold with handler", markdown: "<b onmouseover=alert(1)>bold", shows: "<b onmouseover=alert(1)>bold" },
  { name: "unclosed img", markdown: "<img src=x onerror=alert(1)//", shows: "<img src=x onerror=alert(1)//" },
  { name: "unclosed anchor", markdown: '<a href="javascript:alert(1)"', shows: '<a href="javascript:alert(1)"', anchors: 0 },
  { name: "half a tag", markdown: "<div", shows: "<div" },
  { name: "unclosed comment", markdown: "<!-- <script>alert(1)</script>", shows: "<!--" },
  { name: "cdata", markdown: "<![CDATA[<script>alert(1)</script>]]>", shows: "<![CDATA[" },
  { name: "processing instruction", markdown: '<?xml version="1.0"?><script>alert(1)</script>', shows: "<?xml" },
  { name: "null byte in a tag", markdown: "<scr\0ipt>alert(1)</scr\0ipt>", anchors: 0 },
  // Markdown and HTML mixed.
  { name: "html inside strong", markdown: "**<img src=x onerror=alert(1)>**", shows: "<img src=x onerror=alert(1)>" },
  { name: "html as link text", markdown: "[<img src=x onerror=alert(1)>](https://ok.example)", shows: "<img src=x onerror=alert(1)>", anchors: 1 },
  { name: "markdown link inside an html anchor", markdown: '<a href="https://ok.example">[x](javascript:alert(1))</a>', anchors: 0 },
  { name: "image inside a link", markdown: "[![a](javascript:alert(1))](https://ok.example)", anchors: 1 },
  { name: "safe image inside a link (never an anchor in an anchor)", markdown: "[![a](https://img.example/x.png)](https://ok.example)", anchors: 1 },
  { name: "link inside link text (the inner one wins, as CommonMark says)", markdown: "[[inner](https://a.example)](https://b.example)", anchors: 2 },
  { name: "html in a table cell", markdown: "| <script>alert(1)</script> | b |\n|---|---|\n| <img src=x onerror=alert(1)> | d |", shows: "<script>alert(1)</script>" },
  { name: "html in a list item", markdown: "- <svg onload=alert(1)>\n- [ ] <img src=x onerror=alert(1)>", shows: "<svg onload=alert(1)>" },
  { name: "html in a footnote", markdown: "x[^1]\n\n[^1]: <script>alert(1)</script>", shows: "<script>alert(1)</script>" },
  { name: "html in inline code", markdown: "`<script>alert(1)</script>`", shows: "<script>alert(1)</script>" },
  { name: "html in a heading", markdown: "# <img src=x onerror=alert(1)> title", shows: "<img src=x onerror=alert(1)>" },
  { name: "emphasis splitting a tag", markdown: "<img *src=x* _onerror=alert(1)_>", shows: "onerror" },
  { name: "entity-encoded tag as text", markdown: "&lt;script&gt;alert(1)&lt;/script&gt;", shows: "<script>alert(1)</script>" },
];
