// `baton completion bash|zsh|fish`: a completion script made from the command tree itself (commander's
// commands and options), so it names exactly the commands and options this version has. Files and
// folders complete as the shell does by default after an option that takes a value.
import type { Command, Option } from "commander";
import { BatonError } from "../kernel/errors.js";

interface Node {
  path: string[];
  command: Command;
}

/** Every command under `root`, with its path of names (the root's path is empty). */
function nodes(root: Command, path: string[] = []): Node[] {
  return [{ path, command: root }, ...root.commands.flatMap((c) => nodes(c, [...path, c.name()]))];
}

const visible = (c: Command) => c.commands.filter((sub) => !(sub as unknown as { _hidden?: boolean })._hidden);
const flags = (o: Option) => [o.short, o.long].filter((f): f is string => !!f);
/** Options that take a value: the word after them is that value, not a command. */
const valueFlags = (root: Command) => [...new Set(nodes(root).flatMap((n) => n.command.options.filter((o) => o.required || o.optional).flatMap(flags)))];
const words = (n: Node) => [...visible(n.command).map((c) => c.name()), ...n.command.options.flatMap(flags), "--help"];

function bash(root: Command): string {
  const cases = nodes(root).map((n) => `    "${n.path.join(" ")}") words="${words(n).join(" ")}" ;;`);
  return `# baton completion for bash: add to ~/.bashrc
#   source <(baton completion bash)
_baton() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} path="" words="" i w skip=""
  case " ${valueFlags(root).join(" ")} " in *" $prev "*) COMPREPLY=(); return ;; esac
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if [[ -n $skip ]]; then skip=""; continue; fi
    case " ${valueFlags(root).join(" ")} " in *" $w "*) skip=1; continue ;; esac
    # A word that makes a known command path is a command; any other is an argument (a file, a name).
    [[ $w == -* ]] || case "|${nodes(root)
      .map((n) => n.path.join(" "))
      .join("|")}|" in *"|\${path:+$path }$w|"*) path="\${path:+$path }$w" ;; esac
  done
  case "$path" in
${cases.join("\n")}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _baton baton
`;
}

function zsh(root: Command): string {
  return `#compdef baton
# baton completion for zsh: add to ~/.zshrc (after compinit)
#   source <(baton completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(root).split("\n").slice(2).join("\n")}`;
}

const fishQuote = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

function fish(root: Command): string {
  const lines = ["# baton completion for fish: save as ~/.config/fish/completions/baton.fish", "#   baton completion fish > ~/.config/fish/completions/baton.fish", "complete -c baton -f"];
  for (const n of nodes(root)) {
    // The commands typed so far are exactly this node's path (fish's helper checks each word in turn).
    const at = n.path.length === 0 ? "__fish_use_subcommand" : `__fish_seen_subcommand_from ${n.path[n.path.length - 1]}`;
    for (const sub of visible(n.command)) lines.push(`complete -c baton -n ${fishQuote(at)} -a ${sub.name()} -d ${fishQuote(sub.description())}`);
    for (const o of n.command.options) {
      const parts = [o.long ? `-l ${o.long.replace(/^--/, "")}` : "", o.short ? `-s ${o.short.replace(/^-/, "")}` : "", o.required || o.optional ? "-r -F" : ""].filter(Boolean);
      lines.push(`complete -c baton -n ${fishQuote(at)} ${parts.join(" ")} -d ${fishQuote(o.description)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

const SHELLS = { bash, zsh, fish };

export function completionScript(root: Command, shell: string): string {
  const make = SHELLS[shell as keyof typeof SHELLS];
  if (!make) throw new BatonError(`No completion for "${shell}": choose bash, zsh or fish.`);
  return make(root);
}

export async function runCompletion(root: Command, shell: string): Promise<number> {
  process.stdout.write(completionScript(root, shell));
  return 0;
}
