// Claude Code (through claude-agent-acp) against the fake Anthropic API.
import { describeChatScenarios } from "./support/scenarios.js";
import { CLAUDE } from "./support/kinds.js";

describeChatScenarios(CLAUDE);
