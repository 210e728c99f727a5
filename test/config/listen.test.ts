import { describe, expect, it } from "vitest";
import { parseListenAddress } from "../../src/kernel/listen.js";

describe("listen addresses", () => {
  it("reads host:port, [v6]:port, :port and a bare port", () => {
    expect(parseListenAddress("127.0.0.1:8787")).toEqual({ host: "127.0.0.1", port: 8787 });
    expect(parseListenAddress("[::1]:0")).toEqual({ host: "::1", port: 0 });
    expect(parseListenAddress(":3000")).toEqual({ host: "127.0.0.1", port: 3000 });
    expect(parseListenAddress("8787")).toEqual({ host: "127.0.0.1", port: 8787 });
  });
  it("refuses anything else", () => {
    for (const bad of ["70000", "localhost", "127.0.0.1", "host:port", "1.2.3.4:70000", "a:b:1"]) expect(parseListenAddress(bad), bad).toBeUndefined();
  });
});
