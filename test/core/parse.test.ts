import { describe, expect, it } from "vitest";
import { parseMessage, splitArgs } from "../../src/commands/parse.js";

describe("parseMessage", () => {
  it("classifies commands, escapes and prompts", () => {
    expect(parseMessage("/Status")).toEqual({ kind: "command", name: "status", args: [], rest: "", target: undefined });
    expect(parseMessage("/new@baton_bot claude ~/code")).toEqual({ kind: "command", name: "new", args: ["claude", "~/code"], rest: "claude ~/code", target: "baton_bot" });
    expect(parseMessage("//compact")).toEqual({ kind: "prompt", text: "/compact" });
    expect(parseMessage("/agent review src/x.ts")).toEqual({ kind: "prompt", text: "/review src/x.ts" });
    expect(parseMessage("fix the bug in /src")).toEqual({ kind: "prompt", text: "fix the bug in /src" });
    expect(parseMessage("/usr/bin is odd")).toEqual({ kind: "prompt", text: "/usr/bin is odd" });
  });
  it("keeps quoted arguments together", () => {
    expect(splitArgs(`--switch "my dir" 'x y' z`)).toEqual(["--switch", "my dir", "x y", "z"]);
  });
});
