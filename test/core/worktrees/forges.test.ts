// Which forge a remote URL belongs to, and the Gitea request shape (GitHub's and GitLab's are in pr.test.ts).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { forgeFor, openPullRequest, parseRemote } from "../../../src/core/forges.js";

describe("parseRemote", () => {
  it("reads host (no port, lower case) and repository path from https, ssh and scp-like URLs; none for local ones", () => {
    expect(parseRemote("https://GitHub.com/acme/widgets.git")).toEqual({ host: "github.com", path: "acme/widgets" });
    expect(parseRemote("ssh://git@gitlab.example:2222/group/sub/proj.git")).toEqual({ host: "gitlab.example", path: "group/sub/proj" });
    expect(parseRemote("git@gitea.example:team/app.git")).toEqual({ host: "gitea.example", path: "team/app" });
    expect(parseRemote("http://127.0.0.1:3000/o/r")).toEqual({ host: "127.0.0.1", path: "o/r" });
    expect(parseRemote("file:///srv/git/r.git")).toBeUndefined();
    expect(parseRemote("/srv/git/r.git")).toBeUndefined();
  });

  it("matches a forge by host name, its port ignored", () => {
    const forge = { kind: "gitea" as const, token: "t" };
    expect(forgeFor({ "Gitea.example:3000": forge }, "gitea.example")).toBe(forge);
    expect(forgeFor({ "other.example": forge }, "gitea.example")).toBeUndefined();
  });
});

describe("openPullRequest on Gitea", () => {
  it("posts head, base, title and body with a token header and answers html_url", async () => {
    const calls: Array<{ url?: string; auth?: string; body: unknown }> = [];
    const server = createServer((req, res) => {
      let text = "";
      req.setEncoding("utf8").on("data", (d: string) => (text += d));
      req.on("end", () => {
        calls.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(text) });
        res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ html_url: "https://gitea.example/team/app/pulls/2" }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
      const link = await openPullRequest({ kind: "gitea", token: "gitea-token", api_url: api }, { host: "gitea.example", path: "team/app" }, { title: "T", head: "baton/x", base: "main", body: "B" });
      expect(link).toBe("https://gitea.example/team/app/pulls/2");
      expect(calls).toEqual([{ url: "/api/v1/repos/team/app/pulls", auth: "token gitea-token", body: { title: "T", head: "baton/x", base: "main", body: "B" } }]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
