// A loopback TCP proxy that can cut the line the way a network does: `blackhole()` keeps every
// socket open but forwards nothing more (no FIN, no RST), so neither end learns of it until its
// own timeouts fire; `restore()` lets new connections through again.
import { createConnection, createServer, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  blackhole(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let cut = false;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => undefined);
  };
  const server = createServer((inbound) => {
    track(inbound);
    if (cut) return; // a connection attempt into the black hole hangs
    const outbound = createConnection({ host: "127.0.0.1", port: targetPort });
    track(outbound);
    inbound.on("data", (chunk) => cut || outbound.write(chunk));
    outbound.on("data", (chunk) => cut || inbound.write(chunk));
    inbound.on("end", () => cut || outbound.end());
    outbound.on("end", () => cut || inbound.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    blackhole: () => {
      cut = true;
    },
    restore: () => {
      cut = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
