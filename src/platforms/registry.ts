// The platform kinds Baton knows. Each folder exports one descriptor; nothing here imports an SDK:
// a platform's SDK is loaded only when an instance of it is enabled.
import type { PlatformDescriptor } from "./kit/descriptor.js";
import { matrixPlatform } from "./matrix/descriptor.js";
import { discordPlatform } from "./discord/descriptor.js";
import { slackPlatform } from "./slack/descriptor.js";
import { telegramPlatform } from "./telegram/descriptor.js";
import { webPlatform } from "./web/descriptor.js";

export const PLATFORM_KINDS: Record<string, PlatformDescriptor> = Object.fromEntries([webPlatform, telegramPlatform, slackPlatform, discordPlatform, matrixPlatform].map((d) => [d.kind, d]));
