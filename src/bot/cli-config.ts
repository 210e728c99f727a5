// `baton config validate`.
import { ConfigError } from "../kernel/errors.js";
import { findConfigFile, loadConfigFile } from "../config/load.js";

export function runValidate(file: string | undefined): number {
  const path = findConfigFile({ flag: file });
  if (!path) {
    console.error("No config file found (looked for --config, $BATON_CONFIG, ./baton.yaml, ~/.config/baton/config.yaml).");
    return 1;
  }
  try {
    const loaded = loadConfigFile(path);
    const names = loaded.platforms.map((p) => p.name).join(", ") || "none";
    console.log(`✓ ${path} is valid (platforms: ${names}).`);
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`✗ ${error.userMessage}`);
      return 1;
    }
    throw error;
  }
}
