// A loopback port nothing listens on (bound, then released), for "cannot reach" tests. Not a
// fixed low port: fetch refuses some of those ("bad port") before it tries to connect.
import { freePort } from "./free-port.js";

export const closedPort = (): Promise<number> => freePort();
