import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

let file;
export async function initialize(data) {
  file = data.file;
}
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (file) appendFileSync(file, `${resolved.url}\n${bundledModules(resolved.url)}`);
  return resolved;
}

/**
 * The shipped CLI is a bundle (dist/bundle/): a chunk's source map names the modules inside it,
 * so a chunk loaded is logged as every module it holds, one URL a line, as if loaded one by one.
 */
function bundledModules(url) {
  if (!url.startsWith("file:") || !url.includes("/dist/bundle/")) return "";
  const map = `${fileURLToPath(url)}.map`;
  if (!existsSync(map)) return "";
  const { sources } = JSON.parse(readFileSync(map, "utf8"));
  return sources.map((source) => `${new URL(source, pathToFileURL(map)).href}\n`).join("");
}
