import { afterEach, beforeEach, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeHomeserver } from "../../fakes/matrix/server.js";
import { loadConfigFile } from "../../../src/config/load.js";
import { runMatrixLogin } from "../../../src/platforms/matrix/login-cli.js";
import { checkMatrixCredentials } from "../../../src/platforms/matrix/doctor.js";
import { matrixConfigSchema } from "../../../src/platforms/matrix/config.js";
import { MatrixConnection } from "../../../src/platforms/matrix/client.js";
import { cryptoStoreDir } from "../../../src/platforms/matrix/crypto-store.js";
import { sessionPath } from "../../../src/platforms/matrix/session.js";

let fake: FakeHomeserver;
let dir: string;
beforeEach(async () => {
  fake = await FakeHomeserver.start();
  dir = mkdtempSync(join(tmpdir(), "baton-matrix-login-"));
});
afterEach(async () => {
  delete process.env.MATRIX_PASSWORD;
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

function configFile(password: string): string {
  const path = join(dir, "baton.yaml");
  writeFileSync(path, `platforms:\n  matrix:\n    homeserver: ${fake.baseUrl}\n    user_id: "@baton:${fake.serverName}"\n    password: \${MATRIX_PASSWORD}\n`);
  process.env.MATRIX_PASSWORD = password;
  return path;
}

async function login(options: { newDevice?: boolean } = {}): Promise<string[]> {
  const loaded = loadConfigFile(join(dir, "baton.yaml"));
  const out: string[] = [];
  await runMatrixLogin({ instances: loaded.platforms.filter((p) => p.kind === "matrix"), dataDir: join(dir, "data"), out: (l) => out.push(l), ...options });
  return out;
}

it("logs in once, keeps token and device private in the data dir, and keeps the device on a second login", async () => {
  const { password } = fake.register("baton");
  configFile(password);
  const out = await login();
  const path = sessionPath(join(dir, "data"), "matrix");
  const session = JSON.parse(readFileSync(path, "utf8"));
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(statSync(join(dir, "data", "matrix", "matrix")).mode & 0o777).toBe(0o700);
  expect(session.user_id).toBe(`@baton:${fake.serverName}`);
  expect(out.join("\n")).toContain(`on a new device ${session.device_id}`);
  expect(out.join("\n")).not.toContain(session.access_token);

  expect((await login()).join("\n")).toContain(`on the same device ${session.device_id}`);
  const fresh = await login({ newDevice: true });
  expect(fresh.join("\n")).not.toContain(session.device_id);
});

it("a wrong password is refused with the homeserver's reason", async () => {
  fake.register("baton", "right");
  configFile("wrong");
  await expect(login()).rejects.toThrow(/M_FORBIDDEN/);
});

it("doctor: not logged in, then whoami + device, then encryption ready after the first start, then a lost crypto store", async () => {
  const { password } = fake.register("baton");
  const dataDir = join(dir, "data");
  const config = matrixConfigSchema.parse({ homeserver: fake.baseUrl, user_id: `@baton:${fake.serverName}`, password });
  const env = { dataDir, name: "matrix" };
  let report = await checkMatrixCredentials(config, env);
  expect(report.ok).toBe(false);
  expect(report.lines.join()).toMatch(/baton matrix login/);

  configFile(password);
  await login();
  report = await checkMatrixCredentials(config, env);
  expect(report.ok).toBe(true);
  expect(report.lines.join("\n")).toMatch(/whoami: ok, @baton:fake.test on device \w+/);
  expect(report.lines.join("\n")).toMatch(/keys not published yet/);

  const bot = new MatrixConnection(config, { instance: "matrix", dataDir });
  await bot.start({ info: () => undefined, debug: () => undefined, warn: () => undefined });
  const { ed25519 } = await bot.deviceKeys();
  // The crypto uploads the device's keys in the background after the first sync.
  while (!fake.state.accounts.get(bot.session.user_id)!.devices.get(bot.session.device_id)!.keys) await new Promise((r) => setTimeout(r, 20));
  await bot.stop();
  report = await checkMatrixCredentials(config, env);
  expect(report.ok).toBe(true);
  expect(report.lines.join("\n")).toContain(`encryption: ready, device key ed25519 ${ed25519}`);

  rmSync(cryptoStoreDir(dataDir, "matrix", bot.session.device_id), { recursive: true });
  report = await checkMatrixCredentials(config, env);
  expect(report.ok).toBe(false);
  expect(report.lines.join("\n")).toMatch(/crypto store .* is gone.*--new-device/);
});

it("doctor: a token the homeserver does not know fails with its errcode, never printing it", async () => {
  fake.register("baton");
  const config = matrixConfigSchema.parse({ homeserver: fake.baseUrl, user_id: `@baton:${fake.serverName}`, access_token: "syt_not_a_real_token_123", device_id: "DEV" });
  const report = await checkMatrixCredentials(config, { dataDir: join(dir, "data"), name: "matrix" });
  expect(report.ok).toBe(false);
  expect(report.lines.join()).toMatch(/M_UNKNOWN_TOKEN/);
  expect(report.lines.join()).not.toContain("syt_not_a_real_token_123");
});
