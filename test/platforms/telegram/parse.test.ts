import { describe, expect, it } from "vitest";
import type { Message } from "grammy/types";
import { parseMessage, type ParseOptions } from "../../../src/platforms/telegram/parse.js";

const bot = { id: 4242, username: "baton_test_bot" };
const options = (extra: Partial<ParseOptions> = {}): ParseOptions => ({ instance: "telegram", bot, allowGroups: true, ...extra });
const forum = { id: -100900, type: "supergroup", title: "f", is_forum: true } as Message["chat"];
const alice = { id: 111, is_bot: false, first_name: "Alice", last_name: "Liddell" };

function message(fields: Partial<Message>): Message {
  return { message_id: 50, date: 0, chat: forum, from: alice, text: "", ...fields } as Message;
}

describe("parseMessage", () => {
  it("does not count the implicit reply to a topic's first message as a reply to the bot, even when the bot opened the topic", () => {
    const parsed = parseMessage(
      message({ text: "chatter", message_thread_id: 7, is_topic_message: true, reply_to_message: { message_id: 7, date: 0, chat: forum, from: { ...alice, id: 4242, is_bot: true } } as Message }),
      options(),
    );
    expect(parsed).toMatchObject({ kind: "inbound", message: { direct: false, replyToBot: false, mentions: [] } });
  });

  it("counts an explicit reply to the bot inside a topic", () => {
    const parsed = parseMessage(
      message({ text: "more", message_thread_id: 7, is_topic_message: true, reply_to_message: { message_id: 30, date: 0, chat: forum, from: { ...alice, id: 4242, is_bot: true } } as Message }),
      options(),
    );
    expect(parsed).toMatchObject({ kind: "inbound", message: { route: "telegram:-100900:7", text: "more", replyToBot: true, user: { id: "telegram:111", name: "Alice Liddell" } } });
  });

  it("reports a text mention of the bot (users without a username mention by name)", () => {
    const parsed = parseMessage(message({ text: "Baton run it", entities: [{ type: "text_mention", offset: 0, length: 5, user: { id: 4242, is_bot: true, first_name: "Baton" } }] }), options());
    expect(parsed).toMatchObject({ kind: "inbound", message: { text: "Baton run it", mentions: ["Baton"] } });
  });

  it("names the chat as the scope of a topic, so listen_all_in on the chat covers its topics", () => {
    const inTopic = message({ text: "plain", message_thread_id: 7, is_topic_message: true });
    expect(parseMessage(inTopic, options())).toMatchObject({ kind: "inbound", message: { route: "telegram:-100900:7", scopes: ["telegram:-100900"] } });
    const inChat = message({ chat: { id: -100500, type: "supergroup", title: "g" } as Message["chat"], text: "plain" });
    expect(parseMessage(inChat, options())).toMatchObject({ kind: "inbound", message: { route: "telegram:-100500", scopes: undefined } });
  });

  it("does not treat a reply thread in a plain group as a topic", () => {
    const group = { id: -100500, type: "supergroup", title: "g" } as Message["chat"];
    const parsed = parseMessage(message({ chat: group, text: "/status", entities: [{ type: "bot_command", offset: 0, length: 7 }], message_thread_id: 12 }), options());
    expect(parsed).toMatchObject({ kind: "inbound", message: { route: "telegram:-100500", text: "/status" } });
  });

  it("ignores bots and channel posts", () => {
    expect(parseMessage(message({ from: { ...alice, is_bot: true }, chat: { id: 5, type: "private", first_name: "x" } }), options()).kind).toBe("ignored");
    expect(parseMessage(message({ chat: { id: -1001, type: "channel", title: "c" }, text: "/help" }), options()).kind).toBe("ignored");
  });

  it("keeps one attachment for a GIF sent as animation and document", () => {
    const file = { file_id: "f1", file_unique_id: "u1", file_name: "fun.gif", mime_type: "image/gif", file_size: 10 };
    const parsed = parseMessage(
      message({ chat: { id: 111, type: "private", first_name: "A" }, animation: { ...file, width: 1, height: 1, duration: 1 }, document: file } as Partial<Message>),
      options(),
    );
    expect(parsed.kind === "inbound" && parsed.attachments.map((a) => a.name)).toEqual(["fun.gif"]);
  });
});
