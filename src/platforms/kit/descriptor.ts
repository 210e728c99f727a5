// What each platform folder exports, and the only thing the rest of Baton knows of a platform
// before it is enabled: its config schema, how to load it (the SDK is imported only then), how
// `baton doctor` checks its credentials, and which config values are secrets (kept out of logs).
import type { z } from "zod";
import type { CommonPlatformSettings, PlatformFactory, PlatformSnapshots } from "../contract.js";

interface DoctorReport {
  ok: boolean;
  lines: string[];
  /** The platform could not be asked at all: the network, not the credentials (a warning, not a failure). */
  unreachable?: boolean;
}

/** Where `baton doctor` runs: platforms that keep state in the data dir (Matrix's login and keys) look there. */
export interface DoctorEnv {
  dataDir: string;
  /** Instance name from config (`matrix`, `slack_acme`). */
  name: string;
  /** With store.url: the shared snapshots, to read (the leader's Matrix login and keys are there). */
  snapshots?: Pick<PlatformSnapshots, "load">;
  /** Every entry of the config's access lists: a platform's groups named there may need a grant of their own. */
  accessEntries: readonly string[];
}

export interface PlatformDescriptor<C = any> {
  kind: string;
  schema: z.ZodType<C>;
  /** Imports the adapter and its SDK; called only for an enabled instance. */
  load(): Promise<PlatformFactory<C>>;
  /** `baton doctor`: checks the credentials against the platform (getMe, auth.test, users/@me). */
  doctor?(): Promise<(config: C, env: DoctorEnv) => Promise<DoctorReport>>;
  /** The config values that are secrets (tokens, passwords): redacted wherever they would be shown. */
  secrets(config: C): Array<string | undefined>;
  /** The settings the core applies for every platform, read from this kind's config. */
  common(config: C): CommonPlatformSettings;
}
