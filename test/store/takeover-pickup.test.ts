// A pickup code minted through the leader's MCP endpoint (as a terminal's agent does) survives the
// leader's kill -9: `/pickup CODE` on the new leader binds the chat to the session, the agent resumes
// it there, and the code works once. Two `baton start` processes (the shipped CLI) on one PostgreSQL
// and the Telegram wire fake.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVALID_CODE_TEXT } from "../../src/pickup/service.js";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { privateChat, user } from "../fakes/telegram/fake-chats.js";
import { callTool, codeIn, httpClient, terminalDemoSession, AGENT_TURN_MS } from "../pickup/helpers.js";
import { waitFor } from "../platforms/telegram/helpers.js";
import { ClusterInstances } from "../support/cluster.js";
import { postgresForFile } from "../support/postgres-file.js";
import { endProcessesIn } from "../support/process.js";

const alice = user(111, "Alice", "alice");
const TIMEOUT_MS = 30_000;

const { missing, server } = postgresForFile();
let fake: FakeBotApi;
let dir: string;
let cluster: ClusterInstances | undefined;
let client: Client | undefined;

beforeAll(async () => {
  if (missing) return;
  fake = await FakeBotApi.start({ username: "pickup_bot" });
  dir = realpathSync(mkdtempSync(join(tmpdir(), "baton-ha-pickup-")));
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await cluster?.stopAll();
  await fake?.close();
  if (dir) {
    await endProcessesIn(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

const answered = (pattern: RegExp) => fake.sentTo(111).filter((m) => pattern.test(m.text));
const say = (text: string) => fake.userSends({ chat: privateChat(alice), from: alice, text });

describe.skipIf(missing)("a pickup code across a takeover", { timeout: 120_000 }, () => {
  it("minted through the leader's MCP endpoint, picked up on the next leader after a kill -9", async () => {
    cluster = new ClusterInstances(dir, await server().database());
    const telegram = { access: { allow: ["telegram:111"] }, platforms: { telegram: { token: fake.token, api_root: fake.apiRoot } } };
    const a = cluster.start("alpha", telegram);
    await a.leading();
    const b = cluster.start("beta", telegram);
    await b.standingBy();

    // A session made in a terminal. The demo agent keeps its sessions in each instance's data dir;
    // here both hold it, as an agent's store on `machines:` is reachable from every instance.
    const session = terminalDemoSession(a.dataDir, dir, ["written in the terminal"]);
    terminalDemoSession(b.dataDir, dir, ["written in the terminal"], session);
    client = await httpClient(a.dataDir);
    const prepared = await callTool(client, "prepare_handover", { cwd: dir, agent_kind: "demo", session_id: session });
    expect(prepared.isError, prepared.text).toBe(false);
    const code = codeIn(prepared.text);
    await client.close();
    client = undefined;

    a.child.kill("SIGKILL");
    await b.leading();
    say(`/pickup ${code}`);
    const picked = await waitFor(() => answered(/Picked up Baton demo agent session/)[0], "the pickup on beta", TIMEOUT_MS);
    expect(picked.text).toContain(session.slice(0, 8));
    say("recall");
    await waitFor(() => answered(/1\. written in the terminal/)[0], "the session resumed on beta", AGENT_TURN_MS);

    // Used once: the same code again is refused, like any unknown code.
    say(`/pickup ${code}`);
    await waitFor(() => answered(new RegExp(INVALID_CODE_TEXT.replace(/\./g, "\\.")))[0], "the code refused the second time", TIMEOUT_MS);
    expect(answered(/Picked up/)).toHaveLength(1);
  });
});
