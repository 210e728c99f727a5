// The endpoint table of the Matrix fake: method + path pattern → handler over the homeserver state.
// Returns undefined for an endpoint the fake does not know (the server answers M_UNRECOGNIZED).
import { randomId, SERVER_NAME, type Account, type Device, type HomeserverState } from "./state.js";
import { createRoom, invite, join, leave, MatrixError, redactEvent, relations, requireJoined, requireRoom, sendEvent } from "./rooms.js";
import { claimKeys, queryKeys, sendToDevice, uploadKeys, uploadSignatures, uploadSigningKeys } from "./keys.js";
import { clientEvent } from "./sync.js";
import type { IncomingMessage } from "node:http";

export interface RequestContext {
  method: string;
  path: string;
  query: Record<string, string>;
  body: any;
  raw: Buffer;
  headers: IncomingMessage["headers"];
  auth?: { account: Account; device: Device; token: string };
}

/** A media download answer (bytes, not JSON). */
export class Media {
  constructor(
    readonly content: Buffer,
    readonly contentType: string,
    readonly fileName?: string,
  ) {}
}

type Handler = (state: HomeserverState, ctx: RequestContext, params: string[]) => unknown;
interface Route {
  method: string;
  pattern: RegExp;
  auth: boolean;
  handler: Handler;
}

const CLIENT = "^/_matrix/client/(?:v3|r0|v1)";
const MEDIA_MAX_BYTES = 50 * 1024 * 1024;
const routes: Route[] = [];
const on = (method: string, path: string, handler: Handler, auth = true) => routes.push({ method, pattern: new RegExp(`${CLIENT}${path}$`), auth, handler });

routes.push({ method: "GET", pattern: /^\/_matrix\/client\/versions$/, auth: false, handler: () => ({ versions: ["v1.1", "v1.5", "v1.9", "v1.11", "v1.12"], unstable_features: {} }) });
on("GET", "/login", () => ({ flows: [{ type: "m.login.password" }] }), false);
on(
  "POST",
  "/login",
  (state, { body }) => {
    const localpartOrId: string = body?.identifier?.user ?? body?.user ?? "";
    const userId = localpartOrId.startsWith("@") ? localpartOrId : `@${localpartOrId}:${SERVER_NAME}`;
    const account = state.accounts.get(userId);
    if (body?.type !== "m.login.password") throw new MatrixError(400, "M_UNKNOWN", "Only m.login.password is supported.");
    if (!account || account.password !== body.password) throw new MatrixError(403, "M_FORBIDDEN", "Invalid username or password");
    const device = state.addDevice(account, body.device_id, body.initial_device_display_name);
    return { user_id: userId, access_token: device.accessToken, device_id: device.deviceId, home_server: SERVER_NAME };
  },
  false,
);
on("POST", "/logout", (state, { auth }) => {
  state.tokens.delete(auth!.token);
  auth!.account.devices.delete(auth!.device.deviceId);
  return {};
});
on("GET", "/account/whoami", (_s, { auth }) => ({ user_id: auth!.account.userId, device_id: auth!.device.deviceId }));
on("GET", "/devices", (_s, { auth }) => ({ devices: [...auth!.account.devices.values()].map((d) => ({ device_id: d.deviceId, display_name: d.displayName })) }));
on("GET", "/devices/([^/]+)", (_s, { auth }, [id]) => {
  const device = auth!.account.devices.get(id);
  if (!device) throw new MatrixError(404, "M_NOT_FOUND", "Device not found");
  return { device_id: device.deviceId, display_name: device.displayName };
});
on("GET", "/capabilities", () => ({ capabilities: { "m.change_password": { enabled: false }, "m.room_versions": { default: "10", available: { "10": "stable" } } } }));
on("GET", "/pushrules/?", () => ({ global: { override: [], content: [], room: [], sender: [], underride: [] } }));
on("POST", "/user/([^/]+)/filter", (state, { body }) => {
  const id = String(state.filters.size + 1);
  state.filters.set(id, body);
  return { filter_id: id };
});
on("GET", "/user/([^/]+)/filter/([^/]+)", (state, _c, [, id]) => state.filters.get(id) ?? notFound("Filter not found"));
on("GET", "/user/([^/]+)/account_data/([^/]+)", (_state, { auth }, [, type]) => auth!.account.accountData.get(type) ?? notFound("Account data not found"));
on("PUT", "/user/([^/]+)/account_data/([^/]+)", (_s, { auth, body }, [, type]) => {
  auth!.account.accountData.set(type, body);
  return {};
});
on("GET", "/profile/([^/]+)(?:/displayname)?", (state, _c, [userId]) => {
  const account = state.accounts.get(userId);
  return account ? { displayname: account.displayName } : notFound("Profile not found");
});
on("GET", "/joined_rooms", (state, { auth }) => ({ joined_rooms: [...state.rooms.values()].filter((r) => state.membership(r, auth!.account.userId) === "join").map((r) => r.roomId) }));
on("POST", "/createRoom", (state, { auth, body }) => ({ room_id: createRoom(state, auth!.account.userId, body ?? {}).roomId }));
on("POST", "/(?:rooms/([^/]+)/join|join/([^/]+))", (state, { auth }, [a, b]) => {
  const room = requireRoom(state, a ?? b);
  join(state, room, auth!.account.userId);
  return { room_id: room.roomId };
});
on("POST", "/rooms/([^/]+)/invite", (state, { auth, body }, [roomId]) => (invite(state, requireRoom(state, roomId), auth!.account.userId, body?.user_id), {}));
on("POST", "/rooms/([^/]+)/leave", (state, { auth }, [roomId]) => (leave(state, requireRoom(state, roomId), auth!.account.userId), {}));
on("POST", "/rooms/([^/]+)/forget", () => ({}));
on("GET", "/rooms/([^/]+)/members", (state, { auth }, [roomId]) => {
  const room = requireRoom(state, roomId);
  requireJoined(state, room, auth!.account.userId);
  return { chunk: [...room.state.values()].filter((s) => s.event.type === "m.room.member").map((s) => clientEvent(s)) };
});
on("GET", "/rooms/([^/]+)/joined_members", (state, _c, [roomId]) => {
  const room = requireRoom(state, roomId);
  return { joined: Object.fromEntries(state.members(room).map((m) => [m, { display_name: state.accounts.get(m)?.displayName }])) };
});
on("GET", "/rooms/([^/]+)/state", (state, _c, [roomId]) => [...requireRoom(state, roomId).state.values()].map((s) => clientEvent(s)));
on("GET", "/rooms/([^/]+)/state/([^/]+)/?([^/]*)", (state, _c, [roomId, type, key]) => state.stateEvent(requireRoom(state, roomId), type, key ?? "")?.content ?? notFound("State event not found"));
on("PUT", "/rooms/([^/]+)/state/([^/]+)/?([^/]*)", (state, { auth, body }, [roomId, type, key]) => ({
  event_id: sendEvent(state, requireRoom(state, roomId), auth!.account.userId, type, body ?? {}, undefined, key ?? "").event_id,
}));
on("PUT", "/rooms/([^/]+)/send/([^/]+)/([^/]+)", (state, { auth, body }, [roomId, type, txnId]) => ({
  event_id: sendEvent(state, requireRoom(state, roomId), auth!.account.userId, type, body ?? {}, { token: auth!.token, id: txnId }).event_id,
}));
on("PUT", "/rooms/([^/]+)/redact/([^/]+)/([^/]+)", (state, { auth, body }, [roomId, eventId, txnId]) => ({
  event_id: redactEvent(state, requireRoom(state, roomId), auth!.account.userId, eventId, body?.reason, { token: auth!.token, id: txnId }).event_id,
}));
on("GET", "/rooms/([^/]+)/event/([^/]+)", (state, { auth }, [roomId, eventId]) => {
  const room = requireRoom(state, roomId);
  requireJoined(state, room, auth!.account.userId);
  const stored = state.findEvent(room, eventId);
  return stored ? clientEvent(stored) : notFound("Event not found");
});
on("GET", "/rooms/([^/]+)/relations/([^/]+)(?:/([^/]+))?(?:/([^/]+))?", (state, { auth }, [roomId, eventId, relType, eventType]) => {
  const room = requireRoom(state, roomId);
  requireJoined(state, room, auth!.account.userId);
  return {
    chunk: relations(state, room, eventId, relType, eventType)
      .map((s) => clientEvent(s))
      .reverse(),
  };
});
on("GET", "/rooms/([^/]+)/messages", (state, { auth }, [roomId]) => {
  const room = requireRoom(state, roomId);
  requireJoined(state, room, auth!.account.userId);
  return { chunk: room.timeline.map((s) => clientEvent(s)).reverse(), start: `s${state.position}` };
});
on("PUT", "/rooms/([^/]+)/typing/([^/]+)", (state, { auth, body }, [roomId, userId]) => {
  if (userId !== auth!.account.userId) throw new MatrixError(403, "M_FORBIDDEN", "Cannot set another user's typing state");
  const room = requireRoom(state, roomId);
  requireJoined(state, room, userId);
  state.setTyping(room, userId, !!body?.typing, Number(body?.timeout ?? 30_000));
  return {};
});
on("POST", "/rooms/([^/]+)/(?:receipt/[^/]+/[^/]+|read_markers)", () => ({}));
on("POST", "/keys/upload", (state, { auth, body }) => uploadKeys(state, auth!.account, auth!.device, body ?? {}));
on("POST", "/keys/query", (state, { auth, body }) => queryKeys(state, auth!.account, body ?? {}));
on("POST", "/keys/claim", (state, { body }) => claimKeys(state, body ?? {}));
on("POST", "/keys/device_signing/upload", (state, { auth, body }) => uploadSigningKeys(state, auth!.account, body ?? {}));
on("POST", "/keys/signatures/upload", (state, { body }) => uploadSignatures(state, body ?? {}));
on("PUT", "/sendToDevice/([^/]+)/([^/]+)", (state, { auth, body }, [type]) => (sendToDevice(state, auth!.account.userId, type, body ?? {}), {}));
on("GET", "/room_keys/version(?:/[^/]+)?", () => notFound("No current backup version"));
on("GET", "/media/config", () => ({ "m.upload.size": MEDIA_MAX_BYTES }));
on("GET", "/media/download/([^/]+)/([^/]+)(?:/[^/]+)?", (state, _c, [server, mediaId]) => {
  const media = server === SERVER_NAME ? state.media.get(mediaId) : undefined;
  return media ? new Media(media.content, media.contentType, media.fileName) : notFound("Media not found");
});
routes.push({
  method: "POST",
  pattern: /^\/_matrix\/media\/(?:v3|r0)\/upload$/,
  auth: true,
  handler: (state, { raw, headers, query }) => {
    if (raw.length > MEDIA_MAX_BYTES) throw new MatrixError(413, "M_TOO_LARGE", "Upload too large");
    const mediaId = randomId(24);
    state.media.set(mediaId, { content: raw, contentType: String(headers["content-type"] ?? "application/octet-stream"), fileName: query.filename });
    return { content_uri: `mxc://${SERVER_NAME}/${mediaId}` };
  },
});

export function routeRequest(state: HomeserverState, ctx: RequestContext): unknown {
  for (const route of routes) {
    if (route.method !== ctx.method) continue;
    const match = route.pattern.exec(ctx.path);
    if (!match) continue;
    if (route.auth && !ctx.auth) {
      const missing = !ctx.headers.authorization && !ctx.query.access_token;
      throw new MatrixError(401, missing ? "M_MISSING_TOKEN" : "M_UNKNOWN_TOKEN", missing ? "Missing access token." : "Unknown access token.", { soft_logout: false });
    }
    return route.handler(state, ctx, match.slice(1));
  }
  return undefined;
}

function notFound(message: string): never {
  throw new MatrixError(404, "M_NOT_FOUND", message);
}
