export { FakeSlack } from "./server.js";
export { visibleText } from "./wire.js";
export type { FakeMessage } from "./server.js";
