// The web chat runs the platform contract through its own wire: the page's WebSocket protocol and
// its HTTP routes (file uploads, the agent's files), spoken by a `ws` client and fetch holding the
// token's cookie, as the browser would. The web chat has no strangers (the token holder is the
// operator), no groups and no remote that could rate-limit or refuse, so those items are skipped.
import WebSocket from "ws";
import { createWebAdapter, webConfigSchema } from "../../src/platforms/web/index.js";
import { UPLOAD_NAME_HEADER, UPLOAD_PATH, type ServerEvent, type WireMessage } from "../../src/platforms/web/protocol.js";
import { runAdapterContract, type ContractDriver, type ShownFile, type ShownMessage, type Where } from "./contract.js";

const CONVERSATIONS: Record<Where, string> = { direct: "conv-direct", group: "conv-group", strangerDirect: "conv-stranger" };

/** What a person reads of a message's HTML. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

runAdapterContract("web", async (): Promise<ContractDriver> => {
  const adapter = createWebAdapter("web", webConfigSchema.parse({ listen: "127.0.0.1:0" }), { dataDir: "/nonexistent" });
  const events: ServerEvent[] = [];
  const messages = new Map<string, { conversation: string; message: WireMessage }>();
  const callLog: Array<{ call: "send" | "edit"; at: number; failed: boolean; text: string; messageId: string }> = [];
  const files = new Map<string, ShownFile & { conversation: string }>();
  let socket: WebSocket | undefined;
  let connecting: Promise<WebSocket> | undefined;
  let cookie = "";
  let base = "";
  const connect = () => (connecting ??= open());

  /** Loads an agent's file from the URL the page would use. */
  async function loadFile(conversation: string, message: WireMessage): Promise<void> {
    for (const file of message.files ?? []) {
      if (!file.url || files.has(message.id)) continue;
      const response = await fetch(`${base}${file.url}`, { headers: { cookie } });
      const data = Buffer.from(await response.arrayBuffer());
      files.set(message.id, { conversation, name: file.name, mimeType: file.mimeType, size: file.size, caption: textOf(message.html), data });
    }
  }

  async function open(): Promise<WebSocket> {
    const url = /(http:\/\/\S+)$/.exec(adapter.startInfo!.description)![1];
    base = new URL(url).origin;
    const response = await fetch(url, { redirect: "manual" });
    cookie = (response.headers.get("set-cookie") ?? "").split(";")[0];
    const ws = new WebSocket(`ws://${new URL(url).host}/ws`, { headers: { cookie } });
    ws.on("message", (data) => {
      const event = JSON.parse(String(data)) as ServerEvent;
      events.push(event);
      if (event.type !== "message" || event.message.role !== "agent") return;
      const known = messages.has(event.message.id);
      messages.set(event.message.id, { conversation: event.conversation, message: event.message });
      void loadFile(event.conversation, event.message);
      callLog.push({ call: known ? "edit" : "send", at: Date.now(), failed: false, text: textOf(event.message.html), messageId: event.message.id });
    });
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send(JSON.stringify({ type: "hello", browser: "contract-browser" }));
    for (let i = 0; i < 250 && !events.some((e) => e.type === "welcome"); i++) await new Promise((r) => setTimeout(r, 20));
    socket = ws;
    return ws;
  }

  const shown = (where: Where): ShownMessage[] =>
    [...messages.values()]
      .filter((m) => m.conversation === CONVERSATIONS[where])
      .map(({ message }) => ({ id: message.id, text: textOf(message.html), buttons: (message.buttons ?? []).flat().map((b) => b.label) }));

  return {
    adapter,
    allowedId: "web:contract-browser",
    visibleLimit: 20_000,
    features: { remoteFailures: false, strangers: false, groups: false, files: true },
    route: (where) => `web:${CONVERSATIONS[where]}`,
    async userSays(where, text, options = {}) {
      const ws = await connect();
      const ids: string[] = [];
      for (const file of options.files ?? []) {
        const response = await fetch(`${base}${UPLOAD_PATH}`, {
          method: "POST",
          body: file.data,
          headers: { cookie, "content-type": file.mimeType, [UPLOAD_NAME_HEADER]: encodeURIComponent(file.name) },
        });
        ids.push(((await response.json()) as { id: string }).id);
      }
      ws.send(JSON.stringify({ type: "send", conversation: CONVERSATIONS[where], text, ...(ids.length ? { files: ids } : {}) }));
    },
    shown,
    async press(where, message, label) {
      const ws = await connect();
      const wire = messages.get(message.id)!.message;
      const button = (wire.buttons ?? []).flat().find((b) => b.label === label)!;
      const before = events.length;
      ws.send(JSON.stringify({ type: "action", conversation: CONVERSATIONS[where], messageId: message.id, actionId: button.id }));
      for (;;) {
        const result = events.slice(before).find((e) => e.type === "actionResult");
        if (result && result.type === "actionResult") return { ok: result.ok, text: result.text };
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    failNext: () => {
      throw new Error("the web chat has no remote to fail");
    },
    calls: () => callLog,
    activity: (where) => events.filter((e) => e.type === "typing" && e.conversation === CONVERSATIONS[where]).length,
    fileDownloads: () => adapter.filesFetched,
    uploads: (where) => [...files.values()].filter((f) => f.conversation === CONVERSATIONS[where]),
    async close() {
      socket?.close();
    },
  };
});
