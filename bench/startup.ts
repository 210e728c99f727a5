// `baton start` to ready with every platform enabled against local fakes, and idle RSS after it.
// The real CLI runs in a child process; the fakes of Telegram and Slack run here.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeBotApi } from "../test/fakes/telegram/fake-bot-api.js";
import { FakeSlack } from "../test/fakes/slack/index.js";
import type { BenchResult } from "./types.js";

const RUNS = 3;
const IDLE_SETTLE_MS = 3_000;
const CLI = new URL("../src/bot/cli.js", import.meta.url).pathname;
/** The Node flags `baton` runs with: read from bin/baton.js's shebang, so the bench runs what ships. */
const NODE_FLAGS = (readFileSync(new URL("../../bin/baton.js", import.meta.url), "utf8").split("\n")[0].match(/node\s+(.*)$/)?.[1] ?? "").split(/\s+/).filter(Boolean);

export async function benchStartup(): Promise<BenchResult[]> {
  const telegram = await FakeBotApi.start({ username: "baton_bench_bot" });
  const slack = await new FakeSlack().start();
  const dir = mkdtempSync(join(tmpdir(), "baton-bench-start-"));
  const config = join(dir, "baton.yaml");
  writeFileSync(
    config,
    [
      "agents: { default: demo }",
      "platforms:",
      "  web: { listen: 127.0.0.1:0 }",
      `  telegram: { token: "${telegram.token}", api_root: "${telegram.apiRoot}" }`,
      `  slack: { bot_token: xoxb-fake-bot-token, app_token: xapp-fake-app-token, api_url: "${slack.apiUrl}" }`,
    ].join("\n"),
  );
  const times: number[] = [];
  let rssMb = 0;
  let lines = 0;
  try {
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const child = spawn(process.execPath, [...NODE_FLAGS, CLI, "start", "--config", config, "--data-dir", join(dir, `data-${run}`)], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
      child.stderr.resume();
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => {
          if (out.includes("Baton ready")) {
            clearInterval(timer);
            resolve();
          } else if (child.exitCode !== null) {
            clearInterval(timer);
            reject(new Error(`baton start exited early:\n${out}`));
          }
        }, 2);
      });
      times.push(performance.now() - started);
      lines = out.split("\n").filter((l) => /^(Web chat|telegram|slack)/i.test(l)).length;
      if (run === RUNS - 1) {
        await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
        const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
        rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
      }
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  } finally {
    await telegram.close();
    await slack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const best = Math.min(...times);
  return [
    { name: `baton start → ready, web + telegram + slack on fakes (${lines} platform lines, best of ${RUNS})`, value: best, unit: "ms", target: "< 1500 ms", ok: best < 1500 && lines === 3 },
    { name: "idle RSS, all platforms enabled, no hosts", value: rssMb, unit: "MB", target: "< 120 MB", ok: rssMb < 120 },
  ];
}
