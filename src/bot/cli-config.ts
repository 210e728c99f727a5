// `baton config validate [--json]`: exit 0 when the config loads (warnings, such as a workspace
// that does not exist, are printed but do not fail it), 1 with the key path and line when not.
import { ConfigError } from "../kernel/errors.js";
import { findConfigFile, loadConfigFile } from "../config/load.js";
import { configWarnings, type ConfigWarning } from "../config/warnings.js";

interface ValidateResult {
  ok: boolean;
  path?: string;
  platforms?: string[];
  warnings: ConfigWarning[];
  error?: string;
}

function validate(file: string | undefined): ValidateResult {
  const path = findConfigFile({ flag: file });
  if (!path) return { ok: false, warnings: [], error: "No config file found (looked for --config, $BATON_CONFIG, ./baton.yaml, ~/.config/baton/config.yaml)." };
  try {
    const loaded = loadConfigFile(path);
    return { ok: true, path, platforms: loaded.platforms.map((p) => p.name), warnings: configWarnings(loaded) };
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, path, warnings: [], error: error.userMessage };
    throw error;
  }
}

export function runValidate(file: string | undefined, json = false): number {
  const result = validate(file);
  if (json) process.stdout.write(JSON.stringify(result, null, 2) + "\n");
  else if (!result.ok) console.error(`✗ ${result.error}`);
  else {
    console.log(`✓ ${result.path} is valid (platforms: ${result.platforms!.join(", ") || "none"}).`);
    for (const w of result.warnings) console.log(`! ${w.message}`);
  }
  return result.ok ? 0 : 1;
}
