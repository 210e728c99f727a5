import { expect, it } from "vitest";
import { matrixConfigSchema } from "../../../src/platforms/matrix/config.js";
import { formatMatrixRoute, parseMatrixRoute } from "../../../src/platforms/matrix/routes.js";
import { parseConfigText } from "../../../src/config/load.js";

it("routes name a room, or a thread by its root event; server names may carry a port", () => {
  expect(parseMatrixRoute("matrix:!abc:example.org")).toEqual({ roomId: "!abc:example.org" });
  expect(parseMatrixRoute("matrix:!abc:example.org:8448:$root_1")).toEqual({ roomId: "!abc:example.org:8448", threadRoot: "$root_1" });
  expect(parseMatrixRoute("matrix_work:!abc:example.org", "matrix_work")).toEqual({ roomId: "!abc:example.org" });
  for (const bad of ["matrix:abc", "telegram:!abc:x", "matrix:!abc", "matrix:!abc:x:$"]) expect(parseMatrixRoute(bad), bad).toBeUndefined();
  const route = { roomId: "!r:s.org", threadRoot: "$t" };
  expect(parseMatrixRoute(formatMatrixRoute("matrix", route))).toEqual(route);
});

it("config: a token or a password is needed; listen_all_in takes Matrix routes only", () => {
  const base = { homeserver: "https://matrix.example.org", user_id: "@baton:example.org" };
  expect(matrixConfigSchema.safeParse(base).error?.issues[0].message).toMatch(/access_token, or password/);
  expect(matrixConfigSchema.parse({ ...base, password: "p" })).toMatchObject({ device_name: "Baton", listen_all_in: [], max_file_bytes: 20 * 1024 * 1024 });
  expect(matrixConfigSchema.safeParse({ ...base, password: "p", user_id: "baton" }).error?.issues[0].message).toMatch(/@baton:example.org/);
  expect(matrixConfigSchema.safeParse({ ...base, password: "p", listen_all_in: ["slack:T/C"] }).error?.issues[0].message).toMatch(/not a Matrix route/);
});

it("the config file names the key and line of a Matrix mistake", () => {
  const text = "platforms:\n  matrix:\n    homeserver: https://m.example.org\n    user_id: baton\n    password: x\n";
  expect(() => parseConfigText(text, "baton.yaml")).toThrow(/baton.yaml:4: platforms.matrix.user_id/);
});

it("Matrix access tokens never reach a log line", async () => {
  const { redactSecrets } = await import("../../../src/kernel/secrets.js");
  expect(redactSecrets("GET /sync with syt_YmF0b24_hLrRmKbDcFyVvNzWqJpT_2d0Oa3 failed")).toBe("GET /sync with [REDACTED] failed");
});
