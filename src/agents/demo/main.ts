// The demo agent's own process entry: the agent on stdio and nothing else (no CLI parsing, no
// command modules), so a thread's first answer does not wait for what the agent never uses.
import { runDemoAgent } from "./agent.js";

const connection = runDemoAgent();
await connection.closed;
process.exit(0);
