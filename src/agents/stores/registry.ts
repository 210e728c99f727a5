// Every store reader, in the order `handoff list --harness` documents them.

import type { StoreReader } from "./types.js";
import { claudeReader } from "./claude.js";
import { demoReader } from "./demo.js";

export const READERS: StoreReader[] = [claudeReader, demoReader];
