// `baton matrix login`: logs the bot's account in once with its password and keeps the access
// token and device id in the data dir (0600), so every start is the same device with the same
// encryption keys. `--new-device` starts over as a fresh device (after losing the crypto store).
import { ConfigError } from "../../kernel/errors.js";
import { matrixConfigSchema } from "./config.js";
import { loginWithPassword, readSession, sessionPath } from "./session.js";

export interface MatrixLoginOptions {
  /** The platform instances of kind matrix from the config: name → raw section. */
  instances: Array<{ name: string; config: Record<string, unknown> }>;
  dataDir: string;
  instance?: string;
  newDevice?: boolean;
  /** Password read from stdin (overrides the config's). */
  password?: string;
  out: (line: string) => void;
}

export async function runMatrixLogin(options: MatrixLoginOptions): Promise<void> {
  const names = options.instances.map((i) => i.name);
  const chosen = options.instance ? options.instances.find((i) => i.name === options.instance) : options.instances.length === 1 ? options.instances[0] : undefined;
  if (!chosen) {
    throw new ConfigError(
      names.length === 0
        ? "No Matrix platform in the config: add platforms.matrix with homeserver, user_id and password."
        : `Say which Matrix platform to log in: --instance ${names.join(" or --instance ")}`,
    );
  }
  const config = matrixConfigSchema.parse({ ...chosen.config, ...(options.password ? { password: options.password } : {}) });
  const previous = readSession(options.dataDir, chosen.name);
  const session = await loginWithPassword({ ...config, device_id: options.newDevice ? undefined : config.device_id }, options.dataDir, chosen.name, { reuseDevice: !options.newDevice });
  const sameDevice = previous?.device_id === session.device_id;
  options.out(`Logged in as ${session.user_id} on ${sameDevice ? "the same" : "a new"} device ${session.device_id}.`);
  options.out(`The access token is kept in ${sessionPath(options.dataDir, chosen.name)} (mode 600); you can remove password from the config now.`);
}
