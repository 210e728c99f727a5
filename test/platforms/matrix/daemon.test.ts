// `baton start` with Matrix enabled, as an operator runs it: the Matrix SDK and its crypto load
// (and no other platform's), a DM is answered, and SIGTERM ends the process cleanly even though the
// SDK was mid-sync, with the device's crypto store written to the data dir.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createRoom, join as joinRoom, sendEvent } from "../../fakes/matrix/rooms.js";
import { seenMessages } from "../../fakes/matrix/view.js";
import { startWorld, until, type MatrixWorld } from "./helpers.js";

const BATON = join(process.cwd(), "bin/baton.js");
const EXIT_WAIT_MS = 20_000;
/** A cold start loads the SDK and the crypto wasm; on a machine busy with other tests that takes long. */
const READY_WAIT_MS = 90_000;
let world: MatrixWorld;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(() => world.close());

it("`baton start` loads Matrix only when enabled, answers, and exits 0 on SIGTERM", async () => {
  const { fake, dataDir, alice, bot } = world;
  const password = fake.state.accounts.get(bot)!.password;
  const config = join(dataDir, "baton.yaml");
  writeFileSync(
    config,
    `agents: { default: demo }\naccess: { allow: ["matrix:${alice}"] }\nplatforms:\n  matrix:\n    homeserver: ${fake.baseUrl}\n    user_id: "${bot}"\n    password: \${MATRIX_PASSWORD}\n`,
  );
  const importLog = join(dataDir, "imports.log");
  const child = spawn(process.execPath, ["--import", join(process.cwd(), "test/support/record-imports.mjs"), BATON, "start", "--config", config, "--data-dir", join(dataDir, "baton")], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, MATRIX_PASSWORD: password, BATON_IMPORT_LOG: importLog },
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    await until(() => out.includes("Baton ready") || child.exitCode !== null, "the ready line", READY_WAIT_MS);
    expect(child.exitCode, out).toBeNull();
    expect(out).toMatch(/matrix: connected to .* as @baton:fake\.test \(device \w+, end-to-end encryption on\)/);

    const dm = createRoom(fake.state, alice, { invite: [bot] });
    joinRoom(fake.state, dm, bot);
    sendEvent(fake.state, dm, alice, "m.room.message", { msgtype: "m.text", body: "hello daemon" });
    await until(() => seenMessages(dm, bot).some((m) => /you said "hello daemon"/.test(m.text)), "the answer");

    child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r("still running"), EXIT_WAIT_MS))]);
    expect(code).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
  const loaded = readFileSync(importLog, "utf8");
  for (const present of ["/node_modules/matrix-js-sdk/", "/node_modules/@matrix-org/matrix-sdk-crypto-wasm/"]) expect(loaded, present).toContain(present);
  for (const absent of ["/node_modules/grammy/", "/node_modules/@slack/bolt/"]) expect(loaded, absent).not.toContain(absent);
  expect(out).not.toContain(password);
  const session = JSON.parse(readFileSync(join(dataDir, "baton", "matrix", "matrix", "session.json"), "utf8")) as { access_token: string; device_id: string };
  expect(out).not.toContain(session.access_token);
  const store = join(dataDir, "baton", "matrix", "matrix", `crypto-${session.device_id}`);
  expect(existsSync(join(store, "snapshot.v8"))).toBe(true);
  // The stop wrote a snapshot (writes the crypto made while stopping are in the journal after it).
  expect(readdirSync(store).filter((f) => f.startsWith("journal-"))).toEqual(["journal-2.v8"]);
}, 150_000);
