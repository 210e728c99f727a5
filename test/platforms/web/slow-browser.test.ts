// A browser that reads slower than messages come: past the soft limit of its send buffer it gets no
// more frames, only the newest version of each message is held, and when it has read its buffer
// it gets them in order (a conversation with too many held messages comes whole, from the history).
// The hub runs against a stand-in socket whose buffered amount the test sets, as ws reports it.
import { EventEmitter } from "node:events";
import type { WebSocket } from "ws";
import { describe, expect, it } from "vitest";
import { SocketHub } from "../../../src/platforms/web/sockets.js";
import type { ServerEvent } from "../../../src/platforms/web/protocol.js";
import { silentLogger } from "../../../src/kernel/log.js";

class StandInSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: ServerEvent[] = [];
  send(data: string): void {
    this.sent.push(JSON.parse(data) as ServerEvent);
  }
  ping(): void {}
  terminate(): void {
    this.readyState = 3;
  }
}

const message = (conversation: string, id: string, text: string): ServerEvent => ({ type: "message", conversation, message: { id, role: "agent", kind: "text", html: text, at: 0 } });

describe("a slow browser", () => {
  it("gets no growing buffer: the newest version of each held message once it reads, and a conversation whole when too many were held", async () => {
    const hub = new SocketHub(
      async (client) => void (client.user = "web:b"),
      silentLogger(),
      (conversation) => ({ type: "history", conversation, messages: [{ id: "last", role: "agent", kind: "text", html: "the end, from the history", at: 0 }] }),
    );
    const socket = new StandInSocket();
    hub.accept(socket as unknown as WebSocket);
    socket.emit("message", Buffer.from(JSON.stringify({ type: "hello", browser: "browser-1234" })), false);
    await new Promise((r) => setTimeout(r, 10));

    socket.bufferedAmount = 2 * 1024 * 1024;
    hub.broadcast(message("small", "a", "a v1"));
    hub.broadcast(message("small", "b", "b v1"));
    hub.broadcast({ type: "typing", conversation: "small" });
    hub.broadcast(message("small", "a", "a v2"));
    // Far more than are held for one browser: this conversation will come whole.
    for (let i = 0; i < 300; i++) hub.broadcast(message("huge", `m${i}`, `piece ${i}`));
    hub.broadcast({ type: "conversation", conversation: { id: "small", title: "t", updatedAt: 0, running: true } });
    expect(socket.sent.map((e) => e.type)).toEqual(["conversation"]);

    socket.bufferedAmount = 0;
    await new Promise((r) => setTimeout(r, 450));
    const after = socket.sent.slice(1);
    expect(after[0]).toMatchObject({ type: "history", conversation: "huge" });
    expect(after.slice(1).map((e) => (e.type === "message" ? e.message.html : e.type))).toEqual(["a v2", "b v1"]);
    expect(after.some((e) => e.type === "message" && e.conversation === "huge")).toBe(false);

    // Caught up: frames go straight out again.
    hub.broadcast(message("small", "c", "c v1"));
    expect(socket.sent.at(-1)).toMatchObject({ type: "message", message: { html: "c v1" } });
    hub.closeAll();
  });
});
