// Every store reader, in the order `handoff list --harness` documents them.

import type { StoreReader } from "./types.js";
import { claudeReader } from "./claude.js";
import { clineReader } from "./cline.js";
import { codexReader } from "./codex.js";
import { copilotReader } from "./copilot.js";
import { cursorReader } from "./cursor.js";
import { demoReader } from "./demo.js";
import { droidReader } from "./droid.js";
import { geminiReader } from "./gemini.js";
import { qwenReader } from "./qwen.js";
import { hermesReader } from "./hermes.js";
import { openclawReader } from "./openclaw.js";
import { opencodeReader } from "./opencode.js";
import { piReader, primeReader } from "./pi.js";
import { dshReader } from "./dsh.js";
import { fxReader } from "./fx.js";
import { grokReader } from "./grok.js";

export const READERS: StoreReader[] = [
  claudeReader,
  codexReader,
  opencodeReader,
  clineReader,
  piReader,
  primeReader,
  droidReader,
  copilotReader,
  hermesReader,
  dshReader,
  fxReader,
  grokReader,
  openclawReader,
  cursorReader,
  geminiReader,
  qwenReader,
  demoReader,
];
