// Kept apart from the adapter so the config loader can validate without loading matrix-js-sdk.
import { z } from "zod";
import { commonPlatformFields, refuseUrlCredentials } from "../kit/config.js";
import { isMatrixRoute } from "./routes.js";

export const matrixConfigSchema = z
  .object({
    kind: z.literal("matrix").optional(),
    ...commonPlatformFields,
    // Checked here, so a typo in a room id is a config error rather than a route that never matches.
    listen_all_in: z
      .array(z.string().refine(isMatrixRoute, { message: "not a Matrix route: use matrix:!room:server or matrix:!room:server:$threadroot" }))
      .default([])
      .describe("Rooms (or threads) where every message counts as addressed"),
    homeserver: z.url().describe("Client-server API base URL of the homeserver, e.g. https://matrix.example.org"),
    user_id: z
      .string()
      .regex(/^@[^:\s]+:\S+$/, "a full Matrix user id such as @baton:example.org")
      .describe("The bot's own account"),
    access_token: z.string().min(1).optional().describe("An access token of the bot's account; or use password + `baton matrix login`"),
    password: z.string().min(1).optional().describe("Used once by `baton matrix login` (or the first start) to log in; the token and device are then kept in the data dir"),
    device_id: z.string().min(1).optional().describe("Device of access_token (default: asked from the homeserver); keep it fixed so the encryption keys stay valid"),
    device_name: z.string().min(1).default("Baton").describe("Display name of the device a password login creates"),
    require_encryption: z.boolean().default(false).describe("Refuse to work in unencrypted rooms: messages there get a reply saying why, and nothing reaches an agent"),
    require_verified_devices: z
      .boolean()
      .default(false)
      .describe("Refuse messages sent from devices their owner has not verified (cross-signing): the sender is told why, and nothing reaches an agent"),
  })
  .strict()
  .refine((c) => c.access_token !== undefined || c.password !== undefined, {
    message: "needs access_token, or password (then run `baton matrix login` once)",
    path: ["access_token"],
  })
  .superRefine(refuseUrlCredentials("homeserver", "access_token"));

export type MatrixAdapterConfig = z.infer<typeof matrixConfigSchema>;
