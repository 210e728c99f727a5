// What the page is made of: the HTML shell (page.ts), the stylesheet (styles.ts), a favicon, and
// the page's script — TypeScript in client/, compiled by the same `tsc` run to
// dist/platforms/web/client/. Running from source (tests), the compiled script is taken from dist.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BATON_ROOT } from "../../kernel/install.js";
import { PlatformError } from "../../kernel/errors.js";
import { FAVICON_SVG, renderPageHtml } from "./page.js";
import { STYLESHEET } from "./styles.js";

export interface Asset {
  body: string;
  contentType: string;
}

const SCRIPT_NAME = /^[a-z][a-z0-9-]*\.js$/;

/** Finds the compiled page script in dist/ of this install (the CLI runs from a bundle, tests from src/). */
function findClientDir(): string {
  const candidates = [join(BATON_ROOT, "dist", "platforms", "web", "client")];
  const found = candidates.find((dir) => existsSync(join(dir, "app.js")));
  if (!found) throw new PlatformError("Web chat: the page script is not built; run `npm run build` first.", { reason: "refused", detail: `looked in ${candidates.join(", ")}` });
  return found;
}

export class PageAssets {
  private readonly assets = new Map<string, Asset>();
  private readonly html: string;

  constructor(clientDir: string = findClientDir()) {
    this.html = renderPageHtml();
    this.assets.set("style.css", { body: STYLESHEET, contentType: "text/css; charset=utf-8" });
    this.assets.set("favicon.svg", { body: FAVICON_SVG, contentType: "image/svg+xml" });
    for (const file of readdirSync(clientDir)) {
      if (!SCRIPT_NAME.test(file)) continue;
      // The source-map comment points at files we do not serve; drop it.
      const body = readFileSync(join(clientDir, file), "utf8").replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n");
      this.assets.set(file, { body, contentType: "text/javascript; charset=utf-8" });
    }
  }

  page(): string {
    return this.html;
  }

  get(name: string): Asset | undefined {
    return this.assets.get(name);
  }

  /** Bytes the browser downloads for one page view (the README quotes it). */
  totalBytes(): number {
    let total = Buffer.byteLength(this.html);
    for (const asset of this.assets.values()) total += Buffer.byteLength(asset.body);
    return total;
  }
}
