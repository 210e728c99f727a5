// Files of a workspace fetched for the chat (an agent's file link, /file): only from inside the
// workspace, judged on real paths so neither `..` nor a symlink can lead out of it, and size-capped.
import { copyFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { FileRefusedError } from "../../kernel/errors.js";
import { expandHome } from "../../kernel/paths.js";

/** Copies `path` (relative to the workspace, or absolute) to `dest` when it is a file inside the workspace. */
export async function copyWorkspaceFile(workspace: string, path: string, maxBytes: number, dest: string): Promise<{ size: number; path: string }> {
  const root = await realpath(resolve(expandHome(workspace))).catch(() => {
    throw new FileRefusedError(`The workspace \`${workspace}\` does not exist any more.`);
  });
  const asked = resolve(root, expandHome(path));
  // Judged before the file is looked for, so nothing is told about what exists outside.
  if (!isInsideDir(asked, root)) throw new FileRefusedError(outsideText(path, workspace));
  const real = await realpath(asked).catch(() => {
    throw new FileRefusedError(`\`${path}\` does not exist in the workspace.`);
  });
  if (!isInsideDir(real, root)) throw new FileRefusedError(outsideText(path, workspace));
  const info = await stat(real);
  if (!info.isFile()) throw new FileRefusedError(`\`${path}\` is not a file.`);
  if (info.size > maxBytes) throw new FileRefusedError(tooLargeText(path, info.size, maxBytes));
  await copyFile(real, dest);
  return { size: info.size, path: real };
}

export function outsideText(path: string, workspace: string): string {
  return `\`${path}\` is outside this thread's workspace (\`${workspace}\`), so Baton does not send it.`;
}

export function tooLargeText(path: string, size: number, maxBytes: number): string {
  return `\`${path}\` is ${megabytes(size)}, over the ${megabytes(maxBytes)} limit for files sent into the chat.`;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function isInsideDir(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" ? false : !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}
