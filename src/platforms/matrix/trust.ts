// Which messages the bot takes, with platforms.matrix.require_encryption and
// .require_verified_devices: an unencrypted message (an unencrypted room, or sent in the clear in an
// encrypted one), or one from a device its owner has not verified (cross-signing), is refused with a
// reason instead of reaching the core.
import type { MatrixClient, MatrixEvent } from "matrix-js-sdk";

export interface TrustPolicy {
  requireEncryption: boolean;
  requireVerifiedDevices: boolean;
}

export type Distrust = "unencrypted" | "unverified_device";

/** EventShieldColour.NONE and EventShieldReason.UNVERIFIED_IDENTITY of matrix-js-sdk's crypto API (numeric enums). */
const SHIELD_NONE = 0;
const UNVERIFIED_IDENTITY = 1;

/**
 * Why the event may not be taken, or undefined when it may. That the bot itself has not verified a
 * person's identity does not count: the device must be verified by its owner.
 */
export async function distrustOf(client: MatrixClient, event: MatrixEvent, policy: TrustPolicy): Promise<{ why: Distrust; detail: string } | undefined> {
  if (!policy.requireEncryption && !policy.requireVerifiedDevices) return undefined;
  if (!event.isEncrypted()) return policy.requireEncryption || policy.requireVerifiedDevices ? { why: "unencrypted", detail: "sent unencrypted" } : undefined;
  if (!policy.requireVerifiedDevices) return undefined;
  const info = await client.getCrypto()?.getEncryptionInfoForEvent(event);
  if (!info) return { why: "unverified_device", detail: "no encryption info for the event" };
  if (info.shieldColour === SHIELD_NONE || info.shieldReason === UNVERIFIED_IDENTITY) return undefined;
  return { why: "unverified_device", detail: `shield reason ${info.shieldReason}` };
}

export function distrustText(why: Distrust): string {
  return why === "unencrypted"
    ? "🔒 I only take end-to-end encrypted messages here (platforms.matrix.require_encryption), and this one was not encrypted: turn on encryption in this room's settings, or write to me in an encrypted room. Nothing was passed to an agent."
    : "🔒 Your message came from a device you have not verified, and I only take messages from verified devices (platforms.matrix.require_verified_devices). Verify this session from another of your sessions (cross-signing), then send it again. Nothing was passed to an agent.";
}
