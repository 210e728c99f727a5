// Files of a workspace fetched for the chat (an agent's file link, /file): only from inside the
// workspace, judged on real paths so neither `..` nor a symlink can lead out of it, and size-capped.
// A hard link is another name for a file that may live outside the workspace, so a file with more
// than one link is refused. The copy reads from a descriptor opened with O_NOFOLLOW and checked
// after the open (a regular file, the very file that was judged): a swap in between sends nothing.
import { constants, createWriteStream } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
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
  const judged = await stat(real);
  if (!judged.isFile()) throw new FileRefusedError(`\`${path}\` is not a file.`);
  const file = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => {
    throw new FileRefusedError(`\`${path}\` changed while Baton looked at it; nothing was sent.`);
  });
  try {
    const info = await file.stat();
    if (!info.isFile() || info.ino !== judged.ino || info.dev !== judged.dev) throw new FileRefusedError(`\`${path}\` changed while Baton looked at it; nothing was sent.`);
    if (info.nlink > 1) throw new FileRefusedError(hardLinkText(path, info.nlink));
    if (info.size > maxBytes) throw new FileRefusedError(tooLargeText(path, info.size, maxBytes));
    // At most the size judged: a file that grows meanwhile is cut there, never over the cap.
    const out = createWriteStream(dest, { mode: 0o600 });
    if (info.size === 0) await new Promise<void>((done, fail) => out.on("error", fail).end(done));
    else await pipeline(file.createReadStream({ start: 0, end: info.size - 1, autoClose: false }), out);
    return { size: info.size, path: real };
  } finally {
    await file.close();
  }
}

export function hardLinkText(path: string, links: number): string {
  return `\`${path}\` has ${links} hard links: its other names may be outside the workspace, so Baton does not send it. Send a copy instead (\`cp\` it within the workspace).`;
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
