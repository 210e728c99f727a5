// Loopback ports for servers a test starts on a port it names (redis-server, postgres, sshd, a
// listener in Baton's config). A port found free is only free until someone binds it: on a shared
// machine another test's server or an outgoing connection can take it first. So a start on a free
// port is tried again on another one when it fails, a few times.
import { createServer } from "node:net";

const START_ATTEMPTS = 3;

/** A loopback port nothing listens on now (the kernel's choice of a free one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Runs `start` on a free port; when it fails (the port was taken meanwhile, or the start failed for
 * another reason), again on another port, up to a few attempts. `start` cleans up after a failed try.
 */
export async function startOnFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (error) {
      if (attempt >= START_ATTEMPTS) throw error;
    }
  }
}
