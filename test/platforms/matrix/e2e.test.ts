// End to end: `baton start` as a user runs it (bin/baton.js, the shipped bundle) with the demo agent
// and Matrix on a bot device with Rust crypto, and a second real matrix-js-sdk client with Rust
// crypto playing the user in an encrypted DM, as Element would. Each test ends with nothing logged
// at error or above.
import { afterEach, beforeEach, expect, it } from "vitest";
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type * as sdk from "matrix-js-sdk";
import { createRoom, join as joinRoom, sendEvent } from "../../fakes/matrix/rooms.js";
import type { ShippedBaton } from "../../support/shipped-baton.js";
import { createEncryptedDm, startSdkUser, waitForMember, type SdkUser } from "./sdk-user.js";
import { startShippedMatrixBaton, startWorld, stopShippedMatrix, until, type MatrixWorld } from "./helpers.js";

let world: MatrixWorld;
let baton: ShippedBaton | undefined;
let alice: SdkUser | undefined;

beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await alice?.stop();
  alice = undefined;
  const stopped = baton;
  baton = undefined;
  await stopShippedMatrix(world, stopped);
});

/** `baton start` with Matrix, Alice allowed (`settings`: more Matrix config); `dir` restarts the one that ran there. Gives the device id. */
async function startBaton(dir?: string, settings: Record<string, unknown> = {}): Promise<string> {
  const started = await startShippedMatrixBaton(world, { allow: [`matrix:${world.alice}`], dir, settings });
  baton = started.baton;
  return started.deviceId;
}

/** Alice in an encrypted DM with the bot, the bot joined. */
async function encryptedDm(): Promise<string> {
  alice = await startSdkUser(world.fake, world.alice);
  const roomId = await createEncryptedDm(alice, world.bot);
  await waitForMember(alice, roomId, world.bot);
  return roomId;
}

/** The bot's messages in the room as Alice's client decrypted them, at their latest edit. */
function botMessages(roomId: string): Array<{ event: sdk.MatrixEvent; content: Record<string, any> }> {
  const events = (alice!.client.getRoom(roomId)?.getLiveTimeline().getEvents() ?? []) as sdk.MatrixEvent[];
  return events.filter((e) => e.getSender() === world.bot && e.getType() === "m.room.message").map((e) => ({ event: e, content: e.getContent()["m.new_content"] ?? e.getContent() }));
}
const botSays = (roomId: string, pattern: RegExp) => until(() => botMessages(roomId).find((m) => pattern.test(m.content.body ?? "")), `the bot saying ${pattern}`);

it("E2EE through Baton: an encrypted DM is answered by the demo agent, encrypted, in HTML, streamed by edits, and again after a restart with the same device", async () => {
  const device = await startBaton();
  const roomId = await encryptedDm();

  await alice!.client.sendTextMessage(roomId, "hello there");
  const answer = (await botSays(roomId, /you said "hello there"/)).content;
  expect(answer.body).toMatch(/^Turn 1 of session/);
  // Formatted: HTML for Element, the markdown as the plain body.
  expect(answer).toMatchObject({ msgtype: "m.text", format: "org.matrix.custom.html" });
  expect(answer.formatted_body).toMatch(/^<p>Turn 1 of session/);
  const botSends = world.fake.callsTo(/\/rooms\/.*\/send\/.*/, "PUT").filter((c) => c.userId === world.bot);
  expect(botSends.length).toBeGreaterThan(0);
  expect(botSends.every((c) => c.path.includes("/send/m.room.encrypted/"))).toBe(true);
  // A long turn streams by m.replace edits, decrypted by Alice (step 3 only ever arrives in an edit).
  await alice!.client.sendTextMessage(roomId, "demo:slow");
  await botSays(roomId, /Working… step 3/);
  expect(botMessages(roomId).some((m) => m.event.getContent()["m.relates_to"]?.rel_type === "m.replace")).toBe(true);
  await alice!.client.sendTextMessage(roomId, "/stop");
  await botSays(roomId, /Stopped/);

  const dir = baton!.dir;
  expect(await baton!.stop()).toBe(0);
  expect(baton!.problems()).toEqual([]);
  expect(await startBaton(dir)).toBe(device);
  await alice!.client.sendTextMessage(roomId, "still there?");
  await botSays(roomId, /you said "still there\?"/);
  expect(world.fake.unknownCalls).toEqual([]);
}, 120_000);

it("a message whose room key never reached the bot gets a notice, encrypted, once", async () => {
  await startBaton();
  const roomId = await encryptedDm();
  await alice!.client.sendTextMessage(roomId, "a readable one");
  await botSays(roomId, /you said "a readable one"/);
  // The same message again under a Megolm session the bot never got a key for.
  const room = world.fake.state.rooms.get(roomId)!;
  const sent = room.timeline.map((s) => s.event).find((e) => e.sender === world.alice && e.type === "m.room.encrypted")!;
  for (let i = 0; i < 2; i++) sendEvent(world.fake.state, room, world.alice, "m.room.encrypted", { ...sent.content, session_id: randomBytes(32).toString("base64").replace(/=+$/, "") });
  const notice = await botSays(roomId, /could not decrypt a message from @alice/);
  expect(notice.content.msgtype).toBe("m.notice");
  expect(notice.event.isEncrypted()).toBe(true);
  // The notice waits 5 s for a late key (UNDECRYPTABLE_GRACE_MS): once, for the two messages.
  await new Promise((r) => setTimeout(r, 800));
  expect(botMessages(roomId).filter((m) => /could not decrypt/.test(m.content.body))).toHaveLength(1);
}, 90_000);

it("an encrypted file is fetched for the allowed user, decrypted into Baton's cache, and passed to the agent", async () => {
  await startBaton();
  const roomId = await encryptedDm();
  const plain = Buffer.from("the secret plan\n".repeat(200));
  // What Element does for a file in an encrypted room: AES-256-CTR, the key and hash in the event.
  const key = randomBytes(32);
  const iv = Buffer.concat([randomBytes(8), Buffer.alloc(8)]);
  const cipher = createCipheriv("aes-256-ctr", key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
  const file = {
    url: world.fake.upload(ciphertext),
    key: { kty: "oct", alg: "A256CTR", ext: true, key_ops: ["encrypt", "decrypt"], k: key.toString("base64url") },
    iv: iv.toString("base64").replace(/=+$/, ""),
    hashes: { sha256: createHash("sha256").update(ciphertext).digest("base64").replace(/=+$/, "") },
    v: "v2",
  };
  await alice!.client.sendMessage(roomId, { msgtype: "m.file", body: "read this", filename: "plan.txt", file, info: { mimetype: "text/plain", size: plain.length } } as never);
  await botSays(roomId, new RegExp(`you said "read this \\[file plan\\.txt, ${plain.length} bytes\\]"`));
  const cache = join(baton!.dir, "data", "cache");
  const cached = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  expect(cached.map((e) => readFileSync(join(e.parentPath, e.name)))).toEqual([plain]);
}, 90_000);

it("require_encryption: a message in an unencrypted room is refused with the reason and reaches no agent; an encrypted one is answered", async () => {
  await startBaton(undefined, { require_encryption: true });
  const plainRoom = createRoom(world.fake.state, world.alice, { invite: [world.bot] });
  joinRoom(world.fake.state, plainRoom, world.bot);
  sendEvent(world.fake.state, plainRoom, world.alice, "m.room.message", { msgtype: "m.text", body: "hello in the clear" });
  const botPlain = () => plainRoom.timeline.map((s) => s.event).filter((e) => e.sender === world.bot && e.type === "m.room.message");
  const refusal = await until(() => botPlain().find((e) => /only take end-to-end encrypted messages here \(platforms\.matrix\.require_encryption\)/.test(String(e.content.body))), "the refusal");
  expect(refusal.content.body).toContain("Nothing was passed to an agent");
  await new Promise((r) => setTimeout(r, 500));
  expect(botPlain().some((e) => /you said/.test(String(e.content.body)))).toBe(false);

  const roomId = await encryptedDm();
  await alice!.client.sendTextMessage(roomId, "hello encrypted");
  await botSays(roomId, /you said "hello encrypted"/);
}, 90_000);

it("require_verified_devices: a device its owner has not verified is refused; once cross-signed, its messages are answered", async () => {
  await startBaton(undefined, { require_verified_devices: true });
  const roomId = await encryptedDm();
  await alice!.client.sendTextMessage(roomId, "from an unverified device");
  const refusal = await botSays(roomId, /came from a device you have not verified.*require_verified_devices/);
  expect(refusal.event.isEncrypted()).toBe(true);
  expect(botMessages(roomId).some((m) => /you said/.test(m.content.body ?? ""))).toBe(false);

  // Alice sets up cross-signing: her own keys sign this device.
  const signedAt = Date.now();
  await alice!.client.getCrypto()!.bootstrapCrossSigning({ authUploadDeviceSigningKeys: async (makeRequest) => void (await makeRequest({})) });
  // Baton hears of her new keys through its /sync (her device list changed) and asks for them; a
  // message sent before it has them is refused as from an unverified device, so wait for that.
  await until(
    () => world.fake.callsTo(/\/keys\/query$/, "POST").some((c) => c.userId === world.bot && c.at >= signedAt && c.status === 200 && world.alice in (c.body?.device_keys ?? {})),
    "Baton asking for Alice's new keys",
  );
  await alice!.client.sendTextMessage(roomId, "from a cross-signed device");
  await botSays(roomId, /you said "from a cross-signed device"/);
}, 120_000);
