// Workspace files on another machine fetched for the chat: checked there (real path inside the
// workspace, a file, under the size cap), then streamed here over the shared connection.
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FileRefusedError } from "../../kernel/errors.js";
import { CAT_FILE_SCRIPT, envLine, FILE_EXIT, remoteCommand, WORKSPACE_FILE_SCRIPT } from "./remote-sh.js";
import type { SshMachine } from "./ssh-machine.js";
import { MachineError } from "./types.js";
import { hardLinkText, outsideText, tooLargeText } from "./workspace-files.js";

export async function copyRemoteWorkspaceFile(machine: SshMachine, workspace: string, path: string, maxBytes: number, dest: string): Promise<{ size: number; path: string }> {
  await machine.info();
  const checked = await machine.run(WORKSPACE_FILE_SCRIPT, [workspace, path, String(maxBytes)]);
  const where = `${machine.name}:${workspace}`;
  switch (checked.code) {
    case 0:
      break;
    case FILE_EXIT.noWorkspace:
      throw new FileRefusedError(`The workspace \`${where}\` does not exist any more.`);
    case FILE_EXIT.missing:
      throw new FileRefusedError(`\`${path}\` does not exist in the workspace.`);
    case FILE_EXIT.outside:
      throw new FileRefusedError(outsideText(path, where));
    case FILE_EXIT.notFile:
      throw new FileRefusedError(`\`${path}\` is not a file.`);
    case FILE_EXIT.hardLinked:
      throw new FileRefusedError(hardLinkText(path, Number(checked.stdout.trim())));
    case FILE_EXIT.tooLarge:
      throw new FileRefusedError(tooLargeText(path, Number(checked.stdout.trim()), maxBytes));
    default:
      throw new MachineError(`Could not look at \`${path}\` on ${machine.name}: ${checked.stderr.trim().split("\n").at(-1) || `exit ${checked.code}`}`);
  }
  const [size, real] = checked.stdout.trim().split("\t");
  const remote = machine.connection.spawnSession(remoteCommand(CAT_FILE_SCRIPT, [real]));
  remote.stdin!.end(envLine(machine.settings.env));
  let received = 0;
  // The file may have grown since it was checked: the cap holds for what arrives too.
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      done(received > maxBytes ? new FileRefusedError(tooLargeText(path, received, maxBytes)) : null, chunk);
    },
  });
  const exited = new Promise<number | null>((resolve) => {
    remote.once("close", resolve);
    remote.once("error", () => resolve(-1));
  });
  try {
    await pipeline(remote.stdout!, cap, createWriteStream(dest, { mode: 0o600 }));
  } catch (error) {
    remote.kill();
    await rm(dest, { force: true });
    throw error;
  }
  const code = await exited;
  if (code !== 0) {
    await rm(dest, { force: true });
    throw new MachineError(`Could not copy \`${path}\` from ${machine.name} (exit ${code}).`);
  }
  return { size: Number(size), path: real };
}
