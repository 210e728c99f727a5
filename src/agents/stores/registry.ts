// Every session store: the products' stores (src/agents/products/<id>/), in the order
// `handoff list --harness` documents them. A reader loads only when its store is used: listing
// skips the stores with nothing on disk without loading them.

import type { ReaderContext, StoreInfo, StoreReader } from "./types.js";
import { PRODUCTS, type AgentProduct } from "../products/index.js";
import { storeInfo } from "../products/product.js";

export interface StoreEntry extends StoreInfo {
  /**
   * The paths the reader reads under these options (its location unless said otherwise); when
   * none of them exists, the store holds no session and the reader is not loaded.
   */
  paths?(ctx: ReaderContext): string[];
  load(): Promise<StoreReader>;
}

// One entry per product, so entries compare by identity across calls.
const entries = new WeakMap<AgentProduct, StoreEntry>();

function entryOf(product: AgentProduct & { store: NonNullable<AgentProduct["store"]> }): StoreEntry {
  let entry = entries.get(product);
  if (!entry) {
    const info = storeInfo(product);
    const load = product.store.load;
    entry = { ...info, paths: product.store.paths, load: async () => ({ ...(await load()), ...info }) };
    entries.set(product, entry);
  }
  return entry;
}

/** The stores of every product that has one. */
export function stores(): StoreEntry[] {
  return PRODUCTS.filter((p): p is AgentProduct & { store: NonNullable<AgentProduct["store"]> } => !!p.store).map(entryOf);
}
