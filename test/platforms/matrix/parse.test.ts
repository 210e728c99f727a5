import { expect, it } from "vitest";
import { messageFacts, mentionSubstrings, pillTexts } from "../../../src/platforms/matrix/parse.js";

const bot = { userId: "@baton:example.org", displayName: "Baton" };

it("a mention pill (Element writes the display name and sets m.mentions) is found in the text", () => {
  const facts = messageFacts(
    {
      msgtype: "m.text",
      body: "Baton: run the tests",
      format: "org.matrix.custom.html",
      formatted_body: '<a href="https://matrix.to/#/@baton:example.org">Baton</a>: run the tests',
      "m.mentions": { user_ids: ["@baton:example.org"] },
    },
    bot,
  )!;
  expect(facts).toMatchObject({ text: "Baton: run the tests", mentions: ["Baton"], isEdit: false });
});

it("a pill's own text counts as a mention, whatever it says; pills to others do not", () => {
  const html = '<a href="https://matrix.to/#/%40baton%3Aexample.org">the &amp; bot</a> and <a href="https://matrix.to/#/@carol:example.org">Carol</a>';
  expect(pillTexts(html, bot.userId)).toEqual(["the & bot"]);
  const facts = messageFacts({ msgtype: "m.text", body: "the & bot and Carol: look", format: "org.matrix.custom.html", formatted_body: `${html}: look` }, bot)!;
  expect(facts.mentions).toEqual(["the & bot"]);
});

it("names count as whole words only; the user id counts once", () => {
  expect(mentionSubstrings("ask @baton:example.org now", bot)).toEqual(["@baton:example.org"]);
  expect(mentionSubstrings("@baton:example.org and baton again", bot)).toEqual(["@baton:example.org", "baton"]);
  expect(mentionSubstrings("the Batonite said", bot)).toEqual([]);
  expect(mentionSubstrings("hey baton, and @baton", bot)).toEqual(["baton", "@baton"]);
});

it("threads, replies and the old reply fallback", () => {
  const inThread = messageFacts({ msgtype: "m.text", body: "more", "m.relates_to": { rel_type: "m.thread", event_id: "$root", is_falling_back: true, "m.in_reply_to": { event_id: "$last" } } }, bot)!;
  expect(inThread).toMatchObject({ threadRoot: "$root", replyTo: undefined });
  const reply = messageFacts({ msgtype: "m.text", body: "> <@baton:example.org> old answer\n> second line\n\nthanks", "m.relates_to": { "m.in_reply_to": { event_id: "$a" } } }, bot)!;
  expect(reply).toMatchObject({ text: "thanks", replyTo: "$a" });
});

it("edits are flagged, files carry their attachment, other kinds are not read", () => {
  expect(messageFacts({ msgtype: "m.text", body: "* fixed", "m.new_content": { msgtype: "m.text", body: "fixed" }, "m.relates_to": { rel_type: "m.replace", event_id: "$x" } }, bot)!.isEdit).toBe(
    true,
  );
  const file = messageFacts({ msgtype: "m.file", body: "report.pdf", url: "mxc://example.org/abc", info: { size: 3 } }, bot)!;
  expect(file).toMatchObject({ text: "", attachment: { name: "report.pdf", url: "mxc://example.org/abc", size: 3 } });
  const captioned = messageFacts({ msgtype: "m.image", body: "look at this", filename: "cat.png", url: "mxc://example.org/c" }, bot)!;
  expect(captioned).toMatchObject({ text: "look at this", attachment: { name: "cat.png" } });
  expect(messageFacts({ msgtype: "m.location", body: "geo" }, bot)).toBeUndefined();
});
