// Codex through its ACP adapter (codex-acp driving `codex app-server`) against the fake Responses API.
import { describeChatScenarios } from "./support/scenarios.js";
import { CODEX } from "./support/kinds.js";

describeChatScenarios(CODEX);
