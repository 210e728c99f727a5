// Gemini CLI (`gemini --acp`) against the fake Gemini API.
import { describeChatScenarios } from "./support/scenarios.js";
import { GEMINI } from "./support/kinds.js";

describeChatScenarios(GEMINI);
