// The session stores load on first use, so start-up does not pay for them (and each reader, sql.js
// behind some, loads only when its store is read): code outside the listing commands reaches them
// through this.
export function loadStores(): Promise<typeof import("./stores/index.js")> {
  return import("./stores/index.js");
}
