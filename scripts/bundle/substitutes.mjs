// Where the bundle gives a module something other than what Node would give it at run time, and the
// build-time check that nothing it imports goes missing that way. Three kinds:
// - substitutes: a specifier resolved to another file (a subset of a package, a package's ES module
//   build), which must export every name its importers use;
// - externals: left to Node, but resolved at run time from dist/bundle/, not from the importer's own
//   folder, which must find the same file (or, for an optional package, nothing in both places).
// The names an importer uses are read from its source (`x_1.name`, `require("x").name`, destructuring,
// `import { name }`, `import * as x` then `x.name`), so no list is kept by hand; a use this cannot read
// fails the check rather than passing unread.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { relative } from "node:path";
import { parseAst } from "rolldown/parseAst";

/**
 * A bundler plugin that resolves each substitute's specifier to its file (for the importers it names)
 * and records every importer it did that for, for `checkSubstitutes`.
 * @param {Array<{ specifier: string, importer?: RegExp, file: string }>} substitutes
 * @param {Array<{ specifier: string, importer: string, file: string }>} uses filled while the bundler resolves
 */
export function substitutesPlugin(substitutes, uses) {
  return {
    name: "baton-substitutes",
    resolveId(source, importer) {
      const substitute = substitutes.find((s) => s.specifier === source && importer && (!s.importer || s.importer.test(importer)));
      if (!substitute || !importer) return null;
      uses.push({ specifier: source, importer, file: substitute.file });
      return substitute.file;
    },
  };
}

/**
 * The `external` option for the bundler: a specifier matching one of `patterns` stays an import for
 * Node, and each bare one (a package, not `node:`) is recorded with its importer for `checkExternals`.
 */
export function recordingExternal(patterns, uses) {
  return (source, importer, isResolved) => {
    const external = patterns.some((p) => (typeof p === "string" ? p === source : p.test(source)));
    if (external && !isResolved && importer && !source.startsWith("node:")) uses.push({ specifier: source, importer });
    return external;
  };
}

/** A path for a message: from its package folder when inside node_modules, else from the repository. */
const shown = (path, root) => (path.includes("/node_modules/") ? path.slice(path.lastIndexOf("/node_modules/") + 1) : relative(root, path));

/** Calls every node of `node`'s tree with its parent. */
function walk(node, visit, parent = null) {
  if (!node || typeof node.type !== "string") return;
  visit(node, parent);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const child of value) walk(child, visit, node);
    else if (value && typeof value === "object" && typeof value.type === "string") walk(value, visit, node);
  }
}

/** The helpers compilers wrap a `require` in, which hand the same module object on. */
const INTEROP = /^(?:__importStar|__importDefault|__toESM|_interopRequireWildcard|_interopRequireDefault)$/;
const keyName = (key) => (key.type === "Identifier" ? key.name : String(key.value));
const isModuleCall = (node, specifier) =>
  (node.type === "CallExpression" && node.callee.type === "Identifier" && node.callee.name === "require" && node.arguments[0]?.value === specifier) ||
  (node.type === "ImportExpression" && node.source.value === specifier);

/**
 * The names `source` (a module's text, CommonJS or ES module) takes from `specifier`, and each place
 * where it uses the module in a way that does not say which names (`unread`, with its line).
 * @returns {{ names: Set<string>, unread: string[] }}
 */
export function namesUsed(source, specifier, filename = "module.js") {
  const program = parseAst(source, { sourceType: "unambiguous" }, filename);
  const names = new Set();
  const unread = [];
  const namespaces = new Set();
  const declarations = new Set(); // the identifiers that declare a namespace binding
  const parents = new Map();
  walk(program, (node, parent) => parents.set(node, parent));
  const line = (node) => `line ${source.slice(0, node.start).split("\n").length}`;
  walk(program, (node, parent) => {
    if ((node.type === "ImportDeclaration" || node.type === "ExportNamedDeclaration") && node.source?.value === specifier) {
      for (const s of node.specifiers) {
        if (s.type === "ImportSpecifier") names.add(keyName(s.imported));
        else if (s.type === "ImportDefaultSpecifier") names.add("default");
        else if (s.type === "ImportNamespaceSpecifier") namespaces.add(s.local.name), declarations.add(s.local);
        else if (s.type === "ExportSpecifier") names.add(keyName(s.local));
      }
    } else if (node.type === "ExportAllDeclaration" && node.source.value === specifier) {
      unread.push(`${line(node)}: re-exports all of it`);
    } else if (isModuleCall(node, specifier)) {
      usesOfCall(node, parent);
    }
  });
  // `require("x")` (or `import("x")`) and what its value goes into.
  function usesOfCall(call, parent) {
    let value = call;
    let holder = parent;
    // __importStar(require("x")), __toESM(require("x")), await import("x"): the same module object.
    while ((holder?.type === "CallExpression" && INTEROP.test(holder.callee.name ?? "") && holder.arguments[0] === value) || holder?.type === "AwaitExpression") {
      value = holder;
      holder = parents.get(holder);
    }
    if (holder?.type === "MemberExpression" && holder.object === value && !holder.computed) names.add(holder.property.name);
    else if (holder?.type === "VariableDeclarator" && holder.init === value && holder.id.type === "Identifier") namespaces.add(holder.id.name), declarations.add(holder.id);
    else if (holder?.type === "VariableDeclarator" && holder.init === value && holder.id.type === "ObjectPattern") {
      for (const p of holder.id.properties) {
        if (p.type === "Property" && !p.computed) names.add(keyName(p.key));
        else unread.push(`${line(p)}: a computed or rest property`);
      }
    } else if (holder?.type !== "ExpressionStatement") unread.push(`${line(call)}: \`${source.slice(holder?.start ?? call.start, holder?.end ?? call.end).slice(0, 80)}\``);
  }
  if (namespaces.size > 0) {
    walk(program, (node, parent) => {
      if (node.type !== "Identifier" || !namespaces.has(node.name) || declarations.has(node)) return;
      if (parent?.type === "MemberExpression" && parent.property === node && !parent.computed) return; // other.x_1
      if ((parent?.type === "Property" || parent?.type === "MethodDefinition" || parent?.type === "PropertyDefinition") && parent.key === node && !parent.computed && parent.value !== node) return;
      if (parent?.type === "MemberExpression" && parent.object === node && !parent.computed) names.add(parent.property.name);
      else unread.push(`${line(node)}: \`${node.name}\` used whole`);
    });
  }
  const lineOf = (text) => Number(text.match(/^line (\d+)/)[1]);
  return { names, unread: unread.sort((a, b) => lineOf(a) - lineOf(b)) };
}

/** The names a module file exports, as its importers see them once bundled. */
function exportsOf(file) {
  const source = readFileSync(file, "utf8");
  const program = parseAst(source, { sourceType: "unambiguous" }, file);
  const esm = program.body.some((n) => /^(Import|Export)/.test(n.type));
  if (!esm) return new Set([...Object.keys(createRequire(import.meta.url)(file)), "default"]);
  const names = new Set();
  for (const node of program.body) {
    if (node.type === "ExportDefaultDeclaration") names.add("default");
    else if (node.type === "ExportAllDeclaration") {
      if (node.exported) names.add(keyName(node.exported));
      else for (const name of exportsOf(createRequire(file).resolve(node.source.value))) if (name !== "default") names.add(name);
    } else if (node.type === "ExportNamedDeclaration") {
      for (const s of node.specifiers) names.add(keyName(s.exported));
      const d = node.declaration;
      if (d?.id) names.add(d.id.name);
      for (const v of d?.declarations ?? []) if (v.id.type === "Identifier") names.add(v.id.name);
    }
  }
  return names;
}

/**
 * What is wrong with the substitutes the bundle made: for each importer, each name it uses that the
 * file it was given does not export, and each use the reading above could not follow.
 * @param {Array<{ specifier: string, importer: string, file: string }>} uses
 * @param {string} root paths in the messages are relative to this
 * @returns {string[]} one plain sentence per problem; empty when all is well
 */
export function checkSubstitutes(uses, root) {
  const problems = [];
  const seen = new Set();
  for (const { specifier, importer, file } of uses) {
    if (seen.has(`${importer}\0${specifier}`)) continue;
    seen.add(`${importer}\0${specifier}`);
    const { names, unread } = namesUsed(readFileSync(importer, "utf8"), specifier, importer);
    const exported = exportsOf(file);
    const missing = [...names].filter((name) => !exported.has(name));
    const where = `${shown(importer, root)} imports "${specifier}", which the bundle gives it as ${shown(file, root)}`;
    if (missing.length > 0) problems.push(`${where}: that file does not export ${missing.map((n) => `\`${n}\``).join(", ")}, which the importer uses.`);
    for (const line of unread) problems.push(`${where}: cannot tell which names it uses (${line}); write the use as \`x.name\` or a named import, or change the substitute.`);
  }
  return problems;
}

/**
 * What is wrong with the externals: an importer for which Node, resolving from the bundle's folder,
 * would load another file than from the importer's own folder (another version of the package).
 * @param {Array<{ specifier: string, importer: string }>} uses
 * @param {string} bundleFile a file in the bundle's output folder
 */
export function checkExternals(uses, bundleFile, root) {
  const fromBundle = createRequire(bundleFile);
  const problems = [];
  const seen = new Set();
  for (const { specifier, importer } of uses) {
    if (seen.has(`${importer}\0${specifier}`)) continue;
    seen.add(`${importer}\0${specifier}`);
    const there = resolution(fromBundle, specifier);
    const here = resolution(createRequire(importer), specifier);
    if (there !== here) problems.push(`${shown(importer, root)} imports "${specifier}", left to Node at run time: from the bundle that is ${there}, but from the importer ${here}.`);
  }
  return problems;
}

/** Where `require` finds `specifier` (a path relative to nothing), or why it does not. */
function resolution(require, specifier) {
  try {
    return require.resolve(specifier);
  } catch (error) {
    return error?.code === "ERR_PACKAGE_PATH_NOT_EXPORTED" ? `a package without a require entry (${specifier})` : "not installed";
  }
}
