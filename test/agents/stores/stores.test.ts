// Every reader meets the shared contract over a fixture store written in its runtime's format.

import { describe } from "vitest";
import { runStoreReaderContract } from "./contract.js";
import * as jsonl from "../../fakes/stores/jsonl-stores.js";
import * as other from "../../fakes/stores/other-stores.js";

const FIXTURES = {
  claude: jsonl.claudeFixture,
  codex: jsonl.codexFixture,
  opencode: other.opencodeFixture,
  cline: other.clineFixture,
  pi: jsonl.piFixture,
  prime: jsonl.primeFixture,
  droid: jsonl.droidFixture,
  copilot: jsonl.copilotFixture,
  hermes: other.hermesFixture,
  dsh: other.dshFixture,
  fx: other.fxFixture,
  grok: other.grokFixture,
  openclaw: jsonl.openclawFixture,
  cursor: jsonl.cursorFixture,
  gemini: jsonl.geminiFixture,
  qwen: jsonl.qwenFixture,
  demo: jsonl.demoFixture,
};

for (const [runtime, create] of Object.entries(FIXTURES)) {
  describe(`${runtime} store`, () => runStoreReaderContract({ create }));
}
