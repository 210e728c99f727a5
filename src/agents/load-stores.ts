// The session-store readers (18 of them, sql.js behind some) load on first use, so start-up does
// not pay for them: code outside the listing commands reaches them through this.
export function loadStores(): Promise<typeof import("./stores/index.js")> {
  return import("./stores/index.js");
}
