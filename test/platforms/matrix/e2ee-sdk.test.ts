import { afterEach, beforeEach, expect, it } from "vitest";
import * as sdk from "matrix-js-sdk";
import { FakeHomeserver } from "../../fakes/matrix/server.js";
import { createEncryptedDm, nextMessage, startSdkUser, waitForMember, type SdkUser } from "./sdk-user.js";

let fake: FakeHomeserver;
const users: SdkUser[] = [];
beforeEach(async () => {
  fake = await FakeHomeserver.start();
});
afterEach(async () => {
  for (const u of users.splice(0)) await u.stop();
  await fake.stop();
});

it("two Rust-crypto clients exchange encrypted messages through the fake", async () => {
  const alice = fake.register("alice").userId;
  const bob = fake.register("bob").userId;
  const a = await startSdkUser(fake, alice);
  const b = await startSdkUser(fake, bob);
  users.push(a, b);
  b.client.on(sdk.RoomMemberEvent.Membership, (_e, member) => {
    if (member.userId === bob && member.membership === "invite") void b.client.joinRoom(member.roomId);
  });
  const roomId = await createEncryptedDm(a, bob);
  await waitForMember(a, roomId, bob);
  const got = nextMessage(b, roomId);
  await a.client.sendTextMessage(roomId, "hello secret");
  const event = await got;
  expect(event.isEncrypted()).toBe(true);
  expect(event.getContent().body).toBe("hello secret");
  const back = nextMessage(a, roomId);
  await b.client.sendTextMessage(roomId, "hi back");
  expect((await back).getContent().body).toBe("hi back");
  const sent = fake.callsTo(/\/send\//, "PUT").map((c) => c.path);
  expect(sent.every((p) => p.includes("/m.room.encrypted/"))).toBe(true);
  expect(fake.unknownCalls.map((c) => `${c.method} ${c.path}`)).toEqual([]);
});
