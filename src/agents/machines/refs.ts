// Workspace references as threads, codes and commands carry them: a directory on this machine is
// its path (`/home/me/api`, as before machines existed); a directory on another machine is
// `<machine>:<path>` (`build:/srv/api`, `build:~/code/api`, `build:api` under a root there).

export const LOCAL_MACHINE = "local";

export interface WorkspaceRef {
  machine: string;
  path: string;
}

const MACHINE_PREFIX = /^([a-z][a-z0-9_-]*):(.*)$/s;

/** Splits `build:~/code/api`; text without a known machine prefix is a path on this machine. */
export function parseWorkspaceRef(text: string, isMachine: (name: string) => boolean): WorkspaceRef {
  const m = MACHINE_PREFIX.exec(text);
  if (m && (m[1] === LOCAL_MACHINE || isMachine(m[1]))) return { machine: m[1], path: m[2] };
  return { machine: LOCAL_MACHINE, path: text };
}

export function formatWorkspaceRef(machine: string, path: string): string {
  return machine === LOCAL_MACHINE ? path : `${machine}:${path}`;
}
