// A loopback port nothing listens on (bound, then released), for "cannot reach" tests. Not a
// fixed low port: fetch refuses some of those ("bad port") before it tries to connect.
import { createServer } from "node:net";

export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
