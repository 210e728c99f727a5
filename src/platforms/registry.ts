// Platform kinds and how to load them. The SDK of a platform is imported only when an instance of
// that kind is enabled: each entry is a dynamic import.
import type { z } from "zod";
import type { PlatformFactory } from "./contract.js";
import { telegramConfigSchema } from "./telegram/config.js";
import { slackConfigSchema } from "./slack/config.js";
import { webConfigSchema } from "./web/config.js";

export interface PlatformKind {
  kind: string;
  schema: z.ZodType;
  load(): Promise<PlatformFactory<any>>;
  /** `baton doctor`: checks the credentials against the platform (getMe, auth.test). */
  doctor?(): Promise<(config: any) => Promise<{ ok: boolean; lines: string[] }>>;
}

export const PLATFORM_KINDS: Record<string, PlatformKind> = {
  web: { kind: "web", schema: webConfigSchema, load: async () => (await import("./web/index.js")).createWebAdapter },
  telegram: {
    kind: "telegram",
    schema: telegramConfigSchema,
    load: async () => (await import("./telegram/index.js")).createTelegramAdapter,
    doctor: async () => (await import("./telegram/doctor.js")).checkTelegramCredentials,
  },
  slack: {
    kind: "slack",
    schema: slackConfigSchema,
    load: async () => (await import("./slack/index.js")).createSlackAdapter,
    doctor: async () => (await import("./slack/doctor.js")).checkSlackCredentials,
  },
};
