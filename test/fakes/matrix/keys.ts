// The end-to-end-encryption endpoints of the Matrix fake. A homeserver never sees plaintext or
// private keys: it stores the device and cross-signing keys clients upload, hands out one-time
// keys (then the fallback key) on claim, and forwards to-device messages. That is all this does,
// which is why two real crypto clients against it test E2EE end to end. Not covered: key backup
// (`/room_keys/version` answers "no backup"), dehydrated devices, user-interactive auth on
// `device_signing/upload` (accepted as is).
import type { Account, Device, HomeserverState } from "./state.js";
import { oneTimeKeyCounts } from "./sync.js";

export function uploadKeys(state: HomeserverState, account: Account, device: Device, body: Record<string, any>): Record<string, any> {
  if (body.device_keys) {
    device.keys = body.device_keys;
    state.deviceListChanged(account.userId);
  }
  for (const [id, key] of Object.entries<Record<string, any>>(body.one_time_keys ?? {})) device.oneTimeKeys.set(id, key);
  if (body.fallback_keys && Object.keys(body.fallback_keys).length > 0) {
    device.fallbackKeys.clear();
    for (const [id, key] of Object.entries<Record<string, any>>(body.fallback_keys)) device.fallbackKeys.set(id, key);
  }
  return { one_time_key_counts: oneTimeKeyCounts(device) };
}

export function queryKeys(state: HomeserverState, requester: Account, body: Record<string, any>): Record<string, any> {
  const answer: Record<string, any> = { device_keys: {}, master_keys: {}, self_signing_keys: {}, user_signing_keys: {}, failures: {} };
  for (const [userId, wanted] of Object.entries<string[]>(body.device_keys ?? {})) {
    const account = state.accounts.get(userId);
    if (!account) continue;
    const devices: Record<string, any> = {};
    for (const device of account.devices.values()) {
      if (!device.keys || (wanted.length > 0 && !wanted.includes(device.deviceId))) continue;
      devices[device.deviceId] = { ...device.keys, unsigned: { device_display_name: device.displayName } };
    }
    answer.device_keys[userId] = devices;
    if (account.crossSigning.master) answer.master_keys[userId] = account.crossSigning.master;
    if (account.crossSigning.self_signing) answer.self_signing_keys[userId] = account.crossSigning.self_signing;
    if (userId === requester.userId && account.crossSigning.user_signing) answer.user_signing_keys[userId] = account.crossSigning.user_signing;
  }
  return answer;
}

/** One one-time key per requested device, removed once claimed; the fallback key when none is left. */
export function claimKeys(state: HomeserverState, body: Record<string, any>): Record<string, any> {
  const claimed: Record<string, any> = {};
  for (const [userId, devices] of Object.entries<Record<string, string>>(body.one_time_keys ?? {})) {
    const account = state.accounts.get(userId);
    for (const [deviceId, algorithm] of Object.entries(devices)) {
      const device = account?.devices.get(deviceId);
      if (!device) continue;
      const pick = (keys: Map<string, Record<string, any>>) => [...keys.entries()].find(([id]) => id.startsWith(`${algorithm}:`));
      const oneTime = pick(device.oneTimeKeys);
      if (oneTime) device.oneTimeKeys.delete(oneTime[0]);
      const found = oneTime ?? pick(device.fallbackKeys);
      if (!found) continue;
      ((claimed[userId] ??= {})[deviceId] ??= {})[found[0]] = found[1];
    }
  }
  return { one_time_keys: claimed, failures: {} };
}

export function uploadSigningKeys(state: HomeserverState, account: Account, body: Record<string, any>): Record<string, any> {
  if (body.master_key) account.crossSigning.master = body.master_key;
  if (body.self_signing_key) account.crossSigning.self_signing = body.self_signing_key;
  if (body.user_signing_key) account.crossSigning.user_signing = body.user_signing_key;
  state.deviceListChanged(account.userId);
  return {};
}

/** Merges uploaded signatures into the signed device or cross-signing key. */
export function uploadSignatures(state: HomeserverState, body: Record<string, any>): Record<string, any> {
  for (const [userId, signed] of Object.entries<Record<string, any>>(body)) {
    const account = state.accounts.get(userId);
    if (!account) continue;
    for (const [keyId, object] of Object.entries<Record<string, any>>(signed)) {
      const target = account.devices.get(keyId)?.keys ?? Object.values(account.crossSigning).find((k) => Object.values(k.keys ?? {}).includes(keyId));
      if (!target) continue;
      for (const [signer, signatures] of Object.entries<Record<string, string>>(object.signatures ?? {})) {
        target.signatures = { ...target.signatures, [signer]: { ...target.signatures?.[signer], ...signatures } };
      }
    }
    state.deviceListChanged(userId);
  }
  return { failures: {} };
}

/** Queues a to-device message for each addressed device (`*` = all of the user's devices). */
export function sendToDevice(state: HomeserverState, sender: string, type: string, body: Record<string, any>): void {
  for (const [userId, devices] of Object.entries<Record<string, any>>(body.messages ?? {})) {
    const account = state.accounts.get(userId);
    if (!account) continue;
    for (const [deviceId, content] of Object.entries(devices)) {
      const targets = deviceId === "*" ? [...account.devices.values()] : [account.devices.get(deviceId)].filter((d): d is Device => !!d);
      for (const target of targets) target.inbox.push({ position: state.bump(), event: { sender, type, content } });
    }
  }
}
