// Every session store, in the order `handoff list --harness` documents them. A reader loads only
// when its store is used: listing skips the stores with nothing on disk without loading them.

import type { ReaderContext, StoreInfo, StoreReader } from "./types.js";
import * as at from "./locations.js";

export interface StoreEntry extends StoreInfo {
  /**
   * The paths the reader reads under these options (its location unless said otherwise); when
   * none of them exists, the store holds no session and the reader is not loaded.
   */
  paths?(ctx: ReaderContext): string[];
  load(): Promise<StoreReader>;
}

export const STORES: StoreEntry[] = [
  { ...at.CLAUDE_STORE, load: async () => (await import("../products/claude/store.js")).claudeReader },
  { ...at.CODEX_STORE, load: async () => (await import("../products/codex/store.js")).codexReader },
  { ...at.OPENCODE_STORE, paths: (ctx) => [ctx.dir, at.opencodeDbPath(ctx)], load: async () => (await import("../products/opencode/store.js")).opencodeReader },
  { ...at.CLINE_STORE, load: async () => (await import("../products/cline/store.js")).clineReader },
  { ...at.PI_STORE, load: async () => (await import("../products/pi/store.js")).piReader },
  { ...at.PRIME_STORE, load: async () => (await import("../products/pi/store.js")).primeReader },
  { ...at.DROID_STORE, load: async () => (await import("../products/droid/store.js")).droidReader },
  { ...at.COPILOT_STORE, load: async () => (await import("../products/copilot/store.js")).copilotReader },
  { ...at.HERMES_STORE, load: async () => (await import("../products/hermes/store.js")).hermesReader },
  { ...at.DSH_STORE, paths: (ctx) => [at.dshSessionRoot(ctx)], load: async () => (await import("../products/dsh/store.js")).dshReader },
  { ...at.FX_STORE, load: async () => (await import("../products/fx/store.js")).fxReader },
  { ...at.GROK_STORE, load: async () => (await import("../products/grok/store.js")).grokReader },
  { ...at.OPENCLAW_STORE, load: async () => (await import("../products/openclaw/store.js")).openclawReader },
  // Cursor's Composer conversations live in the IDE's global database, away from the transcripts.
  { ...at.CURSOR_STORE, paths: (ctx) => [ctx.dir, at.cursorGlobalDb(ctx.env, ctx.home)], load: async () => (await import("../products/cursor/store.js")).cursorReader },
  { ...at.GEMINI_STORE, load: async () => (await import("../products/gemini/store.js")).geminiReader },
  { ...at.QWEN_STORE, load: async () => (await import("../products/qwen/store.js")).qwenReader },
  { ...at.DEMO_STORE, load: async () => (await import("../products/demo/store.js")).demoReader },
];
