// `host:port` as written in the config (`listen:` keys): `127.0.0.1:8787`, `[::1]:0`, or `:8787`
// or a bare `8787` for the loopback default. Each caller reports a bad value under its own config key.

export interface ListenAddress {
  host: string;
  port: number;
}

const LISTEN = /^(?:(?:\[([^\]]+)\]|([^:]*)):)?(\d{1,5})$/;
const MAX_PORT = 65_535;

export function parseListenAddress(listen: string, defaultHost = "127.0.0.1"): ListenAddress | undefined {
  const match = LISTEN.exec(listen.trim());
  const port = Number(match?.[3]);
  if (!match || port > MAX_PORT) return undefined;
  return { host: match[1] ?? (match[2] || defaultHost), port };
}
