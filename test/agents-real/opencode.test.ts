// OpenCode (`opencode acp`) against the fake Chat Completions API (an OpenAI-compatible provider).
import { describeChatScenarios } from "./support/scenarios.js";
import { OPENCODE } from "./support/kinds.js";

describeChatScenarios(OPENCODE);
