#!/usr/bin/env node
// Standalone entry for `handoff` (tests and the detached-launch trampoline use it until the main
// CLI lands; the main CLI registers the same command).

import { Command } from "commander";
import { registerHandoffCommand } from "./cli.js";
import { exitQuietlyOnBrokenPipe } from "../../kernel/process.js";

const program = new Command("baton");
registerHandoffCommand(program);
exitQuietlyOnBrokenPipe();
await program.parseAsync(process.argv);
