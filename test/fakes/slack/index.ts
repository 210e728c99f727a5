export { FakeSlack } from "./server.js";
export { visibleText } from "./wire.js";
export type { FakeSlackOptions, FakeMessage, RecordedCall } from "./server.js";
export { FakeSocketMode } from "./socket.js";
export type { Envelope, EnvelopeType } from "./socket.js";
