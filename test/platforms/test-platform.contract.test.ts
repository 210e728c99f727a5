// The in-process test platform runs the contract too: what every other test builds on must itself
// behave like a platform.
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestPlatform } from "../support/test-platform.js";
import { runAdapterContract, type ContractDriver, type Where } from "./contract.js";
import { platformErrorOf } from "./drivers/failures.js";

const ALICE = { id: "test:alice", name: "Alice" };
const STRANGER = { id: "test:mallory", name: "Mallory" };

runAdapterContract("test platform", async (): Promise<ContractDriver> => {
  const platform = new TestPlatform("tp", { maxMessageLength: 1000 });
  const fileDir = mkdtempSync(join(tmpdir(), "baton-tp-files-"));
  const routes: Record<Where, string> = { direct: platform.route("alice"), group: platform.route("team"), strangerDirect: platform.route("mallory") };
  let nextFile = 0;
  return {
    adapter: platform,
    allowedId: ALICE.id,
    visibleLimit: 1000,
    features: { remoteFailures: true, strangers: true, groups: true, files: true },
    route: (where) => routes[where],
    async userSays(where, text, options = {}) {
      const files = (options.files ?? []).map((f) => {
        const path = join(fileDir, `${nextFile++}-${f.name}`);
        writeFileSync(path, f.data);
        return { name: f.name, path, size: f.data.length, mimeType: f.mimeType };
      });
      const direct = where !== "group";
      await platform.say(routes[where], options.mention ? `@baton ${text}` : text, options.stranger ? STRANGER : ALICE, { direct, mentions: options.mention ? ["@baton"] : undefined, files });
    },
    shown: (where) => platform.on(routes[where]).map((m) => ({ id: m.id, text: m.text, buttons: (m.buttons ?? []).flat().map((b) => b.label) })),
    async press(where, message, label, options = {}) {
      const button = platform
        .on(routes[where])
        .find((m) => m.id === message.id)!
        .buttons!.flat()
        .find((b) => b.label === label)!;
      return platform.press(routes[where], button.id, options.stranger ? STRANGER : ALICE);
    },
    failNext: (call, failure) => platform.failNext(call, platformErrorOf(failure)),
    calls: () => platform.callLog,
    activity: (where) => platform.typingCalls.filter((r) => r === routes[where]).length,
    fileDownloads: () => platform.fetched.length,
    uploads: (where) => platform.uploads.filter((u) => u.route === routes[where]).map((u) => ({ name: u.name, mimeType: u.mimeType, size: u.size, caption: u.caption ?? "", data: u.data })),
    close: async () => rmSync(fileDir, { recursive: true, force: true }),
  };
});
