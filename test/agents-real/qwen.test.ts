// Qwen Code (`qwen --acp`) against the fake Chat Completions API (an OpenAI-compatible provider).
import { describeChatScenarios } from "./support/scenarios.js";
import { QWEN } from "./support/kinds.js";

describeChatScenarios(QWEN);
