// The small POSIX shell scripts Baton runs on another machine. ssh hands the remote user's login
// shell one command line, so every script runs as `sh -c '<script>' baton <args…>` with each
// argument quoted. Environment (which may hold API keys) never goes on a command line, where `ps`
// shows it: the first line of stdin carries it and the script evaluates it before anything else.
import { shellQuote } from "../../kernel/shell.js";
import { MachineError } from "./types.js";

const PRELUDE = [
  "IFS= read -r baton_env || exit 97",
  'eval "$baton_env"',
  "unset baton_env",
  // `~` and `~/x` in a path mean the remote user's home.
  'home_path() { case $1 in "~") printf "%s" "$HOME" ;; "~/"*) printf "%s/%s" "$HOME" "${1#??}" ;; *) printf "%s" "$1" ;; esac; }',
].join("\n");

/** Exit codes of the scripts below (besides the command's own, and ssh's 255). */
export const EXIT = { noEnvLine: 97, noWorkspace: 96, notFound: 127, notExecutable: 126 } as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The command line for ssh: the script with its arguments, for the remote login shell. */
export function remoteCommand(script: string, args: readonly string[] = []): string {
  return ["sh", "-c", `${PRELUDE}\n${script}`, "baton", ...args].map(shellQuote).join(" ");
}

/** The first line of stdin: exports and unsets, as shell code (values quoted). */
export function envLine(set: Record<string, string>, unset: readonly string[] = []): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(set)) {
    if (!ENV_NAME.test(name)) throw new MachineError(`\`${name}\` is not a valid environment variable name.`);
    if (value.includes("\n")) throw new MachineError(`The value of ${name} has a line break; Baton cannot pass that to another machine. Use a value on one line.`);
    parts.push(`export ${name}=${shellQuote(value)};`);
  }
  const unsets = unset.filter((n) => ENV_NAME.test(n));
  if (unsets.length > 0) parts.push(`unset ${unsets.join(" ")};`);
  return `${parts.join(" ") || ":"}\n`;
}

/** Runs the agent command in the workspace; 96 when the workspace is gone. */
export const LAUNCH_SCRIPT = ['d=$(home_path "$1"); shift', 'cd "$d" 2>/dev/null || { printf "baton: the workspace %s does not exist here\\n" "$d" >&2; exit 96; }', 'exec "$@"'].join("\n");

/** Prints the canonical path of a directory, or exits 3. */
export const DIRECTORY_SCRIPT = 'p=$(home_path "$1"); [ -d "$p" ] || exit 3; cd "$p" && pwd -P';

/** What Baton needs to know of the machine, one `key<TAB>value` line each, then `env` and the environment. */
export function probeScript(batonWords: readonly string[] | undefined): string {
  const baton = batonWords?.map(shellQuote).join(" ");
  return [
    "d=$1; shift",
    'if [ -n "$d" ]; then d=$(home_path "$d"); else d=${BATON_DATA_DIR:-$HOME/.baton}; fi',
    'printf "home\\t%s\\ndata\\t%s\\n" "$HOME" "$d"',
    'for r in "$@"; do p=$(home_path "$r"); if [ -d "$p" ]; then printf "root\\t%s\\n" "$(cd "$p" && pwd -P)"; else printf "noroot\\t%s\\n" "$r"; fi; done',
    baton ? `v=$(${baton} --version 2>/dev/null) && printf "baton\\t%s\\n" "$v"` : ":",
    'printf "env\\n"',
    "env",
  ].join("\n");
}

/** Copies stdin (after the env line) to `<dir>/<name>` (0600, directory 0700) and prints the path. */
export const PUT_FILE_SCRIPT = ['d=$(home_path "$1")', 'umask 077 && mkdir -p "$d" && cat > "$d/$2" && printf "%s\\n" "$d/$2"'].join("\n");

/** A chat's file for the agent: `<workspace>/.baton/inbox/<name>`, kept out of git by `.baton/.gitignore`. */
export const STAGE_FILE_SCRIPT = [
  'd=$(home_path "$1")/.baton',
  'umask 077 && mkdir -p "$d/inbox" || exit 1',
  '[ -e "$d/.gitignore" ] || printf "*\\n" > "$d/.gitignore"',
  'cat > "$d/inbox/$2" && printf "%s\\n" "$d/inbox/$2"',
].join("\n");

/** Streams a directory as a tar archive on stdout (nothing when it does not exist). */
export const TAR_DIR_SCRIPT = '[ -d "$1" ] || exit 0; cd "$1" && exec tar -cf - .';

/** Runs Baton there: the words of its command, then the arguments. */
export const BATON_SCRIPT = 'exec "$@"';

/** Exit codes of WORKSPACE_FILE_SCRIPT. */
export const FILE_EXIT = { noWorkspace: 96, missing: 94, outside: 93, notFile: 92, tooLarge: 91, hardLinked: 90 } as const;

/**
 * Checks a workspace file for the chat: prints `<size>\t<real path>` when the real path of `$2`
 * (relative to the workspace `$1`, or absolute) is a file inside the workspace's real path and at
 * most `$3` bytes with no other hard link (its other names may be outside); exits with a FILE_EXIT code otherwise.
 */
export const WORKSPACE_FILE_SCRIPT = [
  'w=$(home_path "$1"); p=$2; max=$3',
  'cd "$w" 2>/dev/null || exit 96',
  "root=$(pwd -P)",
  'case $p in "~"|"~/"*) p=$(home_path "$p") ;; /*) ;; *) p="$root/$p" ;; esac',
  // Judged on the path as written first (`realpath -m` needs no file), so nothing is told about what exists outside.
  'asked=$(realpath -m -- "$p" 2>/dev/null || printf "%s" "$p")',
  'case $asked in "$root"/*) ;; *) exit 93 ;; esac',
  'real=$(realpath -e -- "$p" 2>/dev/null || readlink -e -- "$p" 2>/dev/null) || exit 94',
  'case $real in "$root"/*) ;; *) exit 93 ;; esac',
  '[ -f "$real" ] || exit 92',
  // GNU stat, then BSD stat: the link count.
  'links=$(stat -c %h -- "$real" 2>/dev/null || stat -f %l -- "$real" 2>/dev/null)',
  '[ "${links:-1}" -le 1 ] || { printf "%s\\n" "$links"; exit 90; }',
  'size=$(wc -c < "$real" | tr -d " ")',
  '[ "$size" -le "$max" ] || { printf "%s\\n" "$size"; exit 91; }',
  'printf "%s\\t%s\\n" "$size" "$real"',
].join("\n");

/** Writes a file to stdout. */
export const CAT_FILE_SCRIPT = 'exec cat -- "$1"';
