// `baton completion bash|zsh|fish`, each loaded into its own shell and asked what completes a
// partly typed command line (zsh and fish where installed).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanUp, tempDir } from "../packaging/helpers.js";

const BATON = join(process.cwd(), "bin", "baton.js");
afterEach(cleanUp);

function script(shell: string): string {
  const res = spawnSync(process.execPath, [BATON, "completion", shell], { encoding: "utf8" });
  expect(res.status, res.stderr).toBe(0);
  const file = join(tempDir("baton-completion-"), `baton.${shell}`);
  writeFileSync(file, res.stdout);
  return file;
}

const has = (shell: string) => spawnSync("sh", ["-c", `command -v ${shell}`]).status === 0;

/** What the bash function offers for the words typed so far (the last one being completed). */
function bashOffers(file: string, typed: string[], shell = "bash"): string[] {
  const words = typed.map((w) => `'${w}'`).join(" ");
  const setup = shell === "zsh" ? `autoload -U compinit && compinit -u; source ${file}; setopt ksharrays` : `source ${file}`;
  const res = spawnSync(shell, ["-c", `${setup}; COMP_WORDS=(${words}); COMP_CWORD=${typed.length - 1}; _baton; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: "utf8" });
  expect(res.stderr).toBe("");
  return res.stdout.split("\n").filter(Boolean);
}

describe("baton completion", () => {
  it("bash: commands, subcommands and options, skipping an option's value", () => {
    const file = script("bash");
    expect(bashOffers(file, ["baton", "ba"])).toEqual(["backup"]);
    expect(bashOffers(file, ["baton", "--config", "service", "service", "i"])).toEqual(["install"]);
    expect(bashOffers(file, ["baton", "service", "install", "--"]).sort()).toEqual(["--help", "--print", "--system", "--user", "--user-name"]);
    expect(bashOffers(file, ["baton", "restore", "x.tgz", "--f"])).toEqual(["--force"]);
    expect(bashOffers(file, ["baton", "--data-dir", ""])).toEqual([]); // a folder: the shell's own completion
  });

  it.skipIf(!has("zsh"))("zsh: the same through bashcompinit", () => {
    // zsh matches the candidates against the typed word itself: bashcompinit's compgen hands them all over.
    expect(bashOffers(script("zsh"), ["baton", "service", "un"], "zsh").sort()).toEqual(["--help", "install", "logs", "status", "uninstall"]);
  });

  it.skipIf(!has("fish"))("fish: commands with their descriptions, options of a subcommand", () => {
    const file = script("fish");
    const ask = (line: string) => spawnSync("fish", ["-c", `source ${file}; complete -C'${line}'`], { encoding: "utf8" }).stdout;
    expect(ask("baton back")).toMatch(/^backup\twrite the data dir to a gzipped tar/m);
    expect(ask("baton service install --p")).toMatch(/^--print\tprint the unit, change nothing$/m);
  });

  it("names the shells it knows when asked for another", () => {
    const res = spawnSync(process.execPath, [BATON, "completion", "tcsh"], { encoding: "utf8" });
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('baton: No completion for "tcsh": choose bash, zsh or fish.\n');
  });
});
