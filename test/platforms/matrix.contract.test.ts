// Matrix runs the platform contract against the Matrix client-server fake (test/fakes/matrix), in
// unencrypted rooms (E2EE has its own tests in test/platforms/matrix/). The users talk to the fake's state
// directly, as their clients' PUTs would; files go through the media repository. The rooms exist
// before Baton starts, the bot already in them: Alice's DM, a room of three (Alice, Mallory, the bot),
// and Mallory's DM (joined while Mallory was still allowed: invites are test/platforms/matrix/e2e.test.ts's).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { matrixConfigSchema } from "../../src/platforms/matrix/config.js";
import { MatrixAdapter, MATRIX_MAX_MARKDOWN_CHARS } from "../../src/platforms/matrix/index.js";
import { createRoom, invite, join as joinRoom, sendEvent } from "../fakes/matrix/rooms.js";
import { FakeHomeserver, type ScriptedError } from "../fakes/matrix/server.js";
import type { Room } from "../fakes/matrix/state.js";
import { contentText, reactionChoices, seenMessages } from "../fakes/matrix/view.js";
import { runAdapterContract, type ContractDriver, type ScriptedFailure, type Where } from "./contract.js";

const SEND = /^\/_matrix\/client\/v3\/rooms\/[^/]+\/send\/m\.room\.message\//;
const isEdit = (body: any) => body?.["m.relates_to"]?.rel_type === "m.replace";

function matrixError(failure: ScriptedFailure): ScriptedError {
  if (failure.kind === "rate_limited") return { status: 429, errcode: "M_LIMIT_EXCEEDED", retryAfterMs: failure.retryAfterMs };
  if (failure.kind === "formatting") return { status: 413, errcode: "M_TOO_LARGE", error: "Event too large" };
  return { status: 403, errcode: "M_FORBIDDEN", error: "You cannot edit that event" };
}

runAdapterContract("matrix", async (): Promise<ContractDriver> => {
  const fake = await FakeHomeserver.start();
  const dataDir = mkdtempSync(join(tmpdir(), "baton-matrix-contract-"));
  const { password } = fake.register("baton", undefined, "Baton");
  const bot = `@baton:${fake.serverName}`;
  const alice = fake.register("alice", undefined, "Alice").userId;
  const mallory = fake.register("mallory", undefined, "Mallory").userId;
  const roomWith = (creator: string, others: string[]) => {
    const room = createRoom(fake.state, creator, { invite: others });
    for (const other of others) joinRoom(fake.state, room, other);
    return room;
  };
  const rooms: Record<Where, Room> = { direct: roomWith(alice, [bot]), group: roomWith(alice, [bot, mallory]), strangerDirect: roomWith(mallory, [bot]) };
  const config = matrixConfigSchema.parse({ homeserver: fake.baseUrl, user_id: bot, password });
  const adapter = new MatrixAdapter("matrix", config, { dataDir });
  const shown = (where: Where) => seenMessages(rooms[where], bot).map((m) => ({ id: m.eventId, text: m.text, buttons: [...reactionChoices(m).keys()] }));

  return {
    adapter,
    allowedId: `matrix:${alice}`,
    visibleLimit: MATRIX_MAX_MARKDOWN_CHARS,
    features: { remoteFailures: true, strangers: true, groups: true, files: true },
    route: (where) => `matrix:${rooms[where].roomId}`,
    async userSays(where, text, options = {}) {
      const sender = options.stranger ? mallory : alice;
      // Element's mention pill: the display name in the body, a matrix.to link in the HTML, m.mentions.
      const mention = options.mention
        ? { body: `Baton: ${text}`, format: "org.matrix.custom.html", formatted_body: `<a href="https://matrix.to/#/${bot}">Baton</a>: ${text}`, "m.mentions": { user_ids: [bot] } }
        : { body: text };
      const file = options.files?.[0];
      if (!file) return void sendEvent(fake.state, rooms[where], sender, "m.room.message", { msgtype: "m.text", ...mention });
      // A captioned file: the caption in body, the name in filename.
      const url = fake.upload(file.data, file.mimeType, file.name);
      sendEvent(fake.state, rooms[where], sender, "m.room.message", { msgtype: "m.file", ...mention, filename: file.name, url, info: { mimetype: file.mimeType, size: file.data.length } });
    },
    shown,
    async press(where, message, label, options = {}) {
      const room = rooms[where];
      const user = options.stranger ? mallory : alice;
      if (fake.state.membership(room, user) !== "join") {
        // Mallory is let into the room to try.
        invite(fake.state, room, alice, user);
        joinRoom(fake.state, room, user);
      }
      const request = seenMessages(room, bot).find((m) => m.eventId === message.id)!;
      const key = reactionChoices(request).get(label);
      if (!key) throw new Error(`no reaction for ${label} on ${message.id}`);
      const before = seenMessages(room, bot).length;
      sendEvent(fake.state, room, user, "m.reaction", { "m.relates_to": { rel_type: "m.annotation", event_id: message.id, key } });
      // A refusal is a notice in the room naming the presser; an accepted reaction edits the request.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const refusal = seenMessages(room, bot)
          .slice(before)
          .find((m) => m.text.startsWith(options.stranger ? "Mallory" : "Alice"));
        if (refusal) return { ok: false, text: refusal.text };
        if (seenMessages(room, bot).find((m) => m.eventId === message.id)!.text !== request.text) return { ok: true, text: "" };
        await new Promise((r) => setTimeout(r, 25));
      }
      return { ok: false, text: "no answer to the reaction" };
    },
    failNext: (call, failure) => fake.failNext({ method: "PUT", path: SEND, body: (body) => isEdit(body) === (call === "edit") }, matrixError(failure)),
    calls: () =>
      fake
        .callsTo(SEND, "PUT")
        .filter((c) => c.userId === bot)
        .map((c) => ({
          call: isEdit(c.body) ? ("edit" as const) : ("send" as const),
          at: c.at,
          failed: c.status !== 200,
          text: contentText(isEdit(c.body) ? c.body["m.new_content"] : c.body),
          messageId: isEdit(c.body) ? c.body["m.relates_to"].event_id : undefined,
        })),
    activity: (where) => fake.callsTo(new RegExp(`/rooms/${rooms[where].roomId.replace(/[.$]/g, "\\$&")}/typing/`), "PUT").filter((c) => c.body?.typing === true).length,
    fileDownloads: () => fake.callsTo(/\/media\/download\//).length,
    uploads: (where) =>
      seenMessages(rooms[where], bot)
        .filter((m) => ["m.image", "m.file", "m.audio", "m.video"].includes(String(m.content.msgtype)))
        .map((m) => {
          const media = fake.state.media.get(String(m.content.url).split("/").at(-1)!);
          const info = m.content.info as { mimetype?: string; size: number };
          return { name: String(m.content.filename), mimeType: info.mimetype, size: info.size, caption: String(m.content.body), data: media?.content };
        }),
    async close() {
      await fake.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
