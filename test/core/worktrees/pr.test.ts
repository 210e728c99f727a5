// /pr: the thread's branch pushed to the workspace's remote (a local bare repository here) and one
// pull-request call to the forge configured for the remote URL's host (a stand-in on loopback),
// with title, head, base and the thread's brief in its body; the link comes back into the chat.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bootBaton, cleanup, git, gitRepo, tempDir, TURN_MS } from "./helpers.js";

vi.setConfig({ testTimeout: 180_000 });
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  await cleanup();
});

interface Call {
  method?: string;
  url?: string;
  headers: IncomingMessage["headers"];
  body: Record<string, string>;
}

/** A forge API stand-in: records each call and answers as GitHub or GitLab do. */
async function forgeStandIn(answer: (call: Call) => [number, Record<string, unknown>]): Promise<{ calls: Call[]; port: number }> {
  const calls: Call[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8").on("data", (d: string) => (text += d));
    req.on("end", () => {
      const call = { method: req.method, url: req.url, headers: req.headers, body: JSON.parse(text || "{}") };
      calls.push(call);
      const [status, json] = answer(call);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { calls, port: (server.address() as AddressInfo).port };
}

/** A repository whose origin names the forge's host (fetch URL) and pushes to a bare repository here. */
function repoWithRemote(port: number, path: string): { repo: string; bare: string } {
  const repo = gitRepo();
  const bare = tempDir("baton-wt-bare-");
  git(bare, "init", "-q", "--bare");
  git(repo, "remote", "add", "origin", `http://127.0.0.1:${port}/${path}.git`);
  git(repo, "config", "remote.origin.pushurl", bare);
  return { repo, bare };
}

describe("/pr", () => {
  it("pushes the branch and opens one GitHub pull request with title, head, base and the brief; answers its link", async () => {
    const forge = await forgeStandIn(() => [201, { number: 7, html_url: "https://forge.example/acme/widgets/pull/7" }]);
    const { repo, bare } = repoWithRemote(forge.port, "acme/widgets");
    const config = { forges: { [`127.0.0.1:${forge.port}`]: { kind: "github", token: "ghp_test_token_123456", api_url: `http://127.0.0.1:${forge.port}/api` } } };
    const { platform, core } = await bootBaton({ cwd: repo, config });
    const route = platform.route("pr");
    await platform.say(route, "demo:write notes.txt a change worth a review");
    await platform.waitFor(route, /Wrote notes\.txt/, TURN_MS);
    const thread = core.registry.threadForRoute(route)!;
    const { branch } = thread.worktree!;

    await platform.say(route, "/pr Better notes");
    const answer = await platform.waitFor(route, /opened a pull request/, TURN_MS);
    expect(answer.text).toContain("https://forge.example/acme/widgets/pull/7");
    expect(git(bare, "show", `${branch}:notes.txt`)).toBe("a change worth a review");
    expect(forge.calls).toHaveLength(1);
    const [call] = forge.calls;
    expect(call.method).toBe("POST");
    expect(call.url).toBe("/api/repos/acme/widgets/pulls");
    expect(call.headers.authorization).toBe("Bearer ghp_test_token_123456");
    expect(call.body).toMatchObject({ title: "Better notes", head: branch, base: "main" });
    expect(call.body.body).toContain(`Baton thread \`${thread.id}\``);
    expect(call.body.body).toContain("# Handoff brief");
    expect(call.body.body).toContain(thread.session!);
  });

  it("opens a GitLab merge request titled by the first prompt, and says what a refusing forge answered", async () => {
    let refuse = false;
    const forge = await forgeStandIn(() =>
      refuse ? [409, { message: ["Another open merge request already exists for this source branch"] }] : [201, { iid: 3, web_url: "https://lab.example/g/sub/proj/-/merge_requests/3" }],
    );
    const { repo } = repoWithRemote(forge.port, "g/sub/proj");
    const config = { forges: { "127.0.0.1": { kind: "gitlab", token: "glpat-test-token-1234", api_url: `http://127.0.0.1:${forge.port}/api/v4` } } };
    const { platform, core } = await bootBaton({ cwd: repo, config });
    const route = platform.route("mr");
    await platform.say(route, "demo:write notes.txt gitlab change");
    await platform.waitFor(route, /Wrote notes\.txt/, TURN_MS);
    await platform.say(route, "/pr");
    await platform.waitFor(route, /merge_requests\/3/, TURN_MS);
    const branch = core.registry.threadForRoute(route)!.worktree!.branch;
    expect(forge.calls[0].url).toBe("/api/v4/projects/g%2Fsub%2Fproj/merge_requests");
    expect(forge.calls[0].headers["private-token"]).toBe("glpat-test-token-1234");
    expect(forge.calls[0].body).toMatchObject({ source_branch: branch, target_branch: "main", title: "demo:write notes.txt gitlab change" });

    refuse = true;
    await platform.say(route, "/pr");
    const refused = await platform.waitFor(route, /refused/, TURN_MS);
    expect(refused.text).toContain("HTTP 409");
    expect(refused.text).toContain("Another open merge request already exists");
  });

  it("says which forge to configure when none matches the remote's host, and pushes nothing", async () => {
    const { repo, bare } = repoWithRemote(9, "acme/widgets");
    const { platform } = await bootBaton({ cwd: repo });
    const route = platform.route("none");
    await platform.say(route, "demo:write notes.txt x");
    await platform.waitFor(route, /Wrote notes\.txt/, TURN_MS);
    await platform.say(route, "/pr");
    const refused = await platform.waitFor(route, /No forge is configured for 127\.0\.0\.1/, TURN_MS);
    expect(refused.text).toContain("forges:");
    expect(git(bare, "branch", "--list")).toBe("");
  });
});
