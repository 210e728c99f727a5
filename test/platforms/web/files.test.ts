// The web chat's file routes at the wire: uploads need the token (or its cookie), come from this
// origin only and stop at max_file_bytes; the agent's files are served behind the token, sandboxed,
// raster images inline and everything else (SVG included) as a download; a file leaves with its
// message when the history drops it.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConversationHistory } from "../../../src/platforms/web/history.js";
import { WebFiles } from "../../../src/platforms/web/files.js";
import { UPLOAD_NAME_HEADER, UPLOAD_PATH } from "../../../src/platforms/web/protocol.js";
import { silentLogger } from "../../../src/kernel/log.js";
import { startWebBaton, type WebBaton } from "./helpers.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

let web: WebBaton | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await web?.baton.stop({ cleanup: true });
  web = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function cookieOf(w: WebBaton): Promise<string> {
  return ((await fetch(w.url, { redirect: "manual" })).headers.get("set-cookie") ?? "").split(";")[0];
}

const upload = (origin: string, headers: Record<string, string>, body: Buffer | string = "hello") =>
  fetch(`${origin}${UPLOAD_PATH}`, { method: "POST", body, headers: { "content-type": "text/plain", [UPLOAD_NAME_HEADER]: encodeURIComponent("hé llo.txt"), ...headers } });

describe("web chat files", () => {
  it("takes uploads only with the cookie, from this origin, up to max_file_bytes", async () => {
    web = await startWebBaton();
    const origin = `http://127.0.0.1:${web.port}`;
    expect((await upload(origin, {})).status).toBe(401);
    const cookie = await cookieOf(web);
    expect((await upload(origin, { cookie, origin: "http://evil.example" })).status).toBe(403);
    const ok = await upload(origin, { cookie, origin });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ name: "hé llo.txt", mimeType: "text/plain", size: 5, id: expect.stringMatching(/^[\w-]{12}$/) });
    expect((await upload(origin, { cookie, [UPLOAD_NAME_HEADER]: "" })).status).toBe(400);
    await web.baton.stop({ cleanup: true });

    web = await startWebBaton({ web: { max_file_bytes: 1024 } });
    const small = `http://127.0.0.1:${web.port}`;
    const big = await upload(small, { cookie: await cookieOf(web) }, Buffer.alloc(2048));
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatch(/Files up to 0 MB \(platforms\.web\.max_file_bytes\)/);
  });

  it("serves the agent's files sandboxed: images inline, the rest as downloads", async () => {
    web = await startWebBaton();
    const cookie = await cookieOf(web);
    const origin = `http://127.0.0.1:${web.port}`;
    const dir = mkdtempSync(join(tmpdir(), "baton-webfiles-"));
    dirs.push(dir);
    writeFileSync(join(dir, "a.png"), Buffer.from("png bytes"));
    writeFileSync(join(dir, "b.svg"), "<svg onload=alert(1)></svg>");
    const png = await web.adapter.upload("web:conv-files", { name: "a.png", mimeType: "image/png", path: join(dir, "a.png"), size: 9 });
    const svg = await web.adapter.upload("web:conv-files", { name: "b.svg", mimeType: "image/svg+xml", path: join(dir, "b.svg"), size: 27, caption: "**look**" });
    const image = await fetch(`${origin}/files/conv-files/${png.id}`, { headers: { cookie } });
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("content-disposition")).toMatch(/^inline; filename\*=UTF-8''a\.png$/);
    expect(image.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(Buffer.from(await image.arrayBuffer()).toString()).toBe("png bytes");
    const download = await fetch(`${origin}/files/conv-files/${svg.id}`, { headers: { cookie } });
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(download.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect((await fetch(`${origin}/files/conv-files/${svg.id}`)).status).toBe(401);
    expect((await fetch(`${origin}/files/conv-files/nope-nope`, { headers: { cookie } })).status).toBe(404);
    expect((await fetch(`${origin}/files/..%2F..%2Fweb-token/x`, { headers: { cookie } })).status).toBe(404);
  });

  it("drops a file with the message the history no longer keeps", async () => {
    const dir = mkdtempSync(join(tmpdir(), "baton-webfiles-"));
    dirs.push(dir);
    writeFileSync(join(dir, "f.txt"), "x");
    const files = new WebFiles(join(dir, "web"));
    files.open();
    const history = new ConversationHistory(join(dir, "web"), silentLogger(), 2, (conversation, message) => void files.drop(conversation, message.id));
    history.load();
    await files.keep("conv-drop", "msg-first", { name: "f.txt", mimeType: "text/plain", path: join(dir, "f.txt"), size: 1 });
    history.append("conv-drop", { id: "msg-first", role: "agent", kind: "text", text: "", files: [{ name: "f.txt", mimeType: "text/plain", size: 1 }], at: 1 });
    history.append("conv-drop", { id: "msg-second", role: "agent", kind: "text", text: "two", at: 2 });
    expect(readdirSync(join(dir, "web", "files", "conv-drop"))).toEqual(["msg-first"]);
    history.append("conv-drop", { id: "msg-third", role: "agent", kind: "text", text: "three", at: 3 });
    await history.flush();
    // The history drops the file without waiting for the removal (a busy disk can take its time).
    await expect.poll(() => existsSync(join(dir, "web", "files", "conv-drop", "msg-first")), { timeout: 5_000 }).toBe(false);
  });
});
