// `baton config validate [--json]`: exit 0 when the config loads (warnings, such as a workspace
// that does not exist, are printed but do not fail it), 1 with the key path and line when not.
// No config file at all is valid: `baton start` runs on the embedded default.
import { ConfigError } from "../kernel/errors.js";
import { defaultConfig, findConfigFile, loadConfigFile } from "../config/load.js";
import { configWarnings, type ConfigWarning } from "../config/warnings.js";

interface ValidateResult {
  ok: boolean;
  path?: string;
  /** True when no config file was found: the embedded default is what `baton start` runs. */
  defaults?: boolean;
  platforms?: string[];
  warnings: ConfigWarning[];
  error?: string;
}

function validate(file: string | undefined): ValidateResult {
  const path = findConfigFile({ flag: file });
  if (!path) {
    const loaded = defaultConfig();
    return { ok: true, defaults: true, platforms: loaded.platforms.map((p) => p.name), warnings: configWarnings(loaded) };
  }
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
  if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else if (!result.ok) console.error(`✗ ${result.error}`);
  else {
    if (result.defaults) console.log("✓ no config: defaults (the web chat on 127.0.0.1, the first agent found). Looked for --config, $BATON_CONFIG, ./baton.yaml, ~/.config/baton/config.yaml.");
    else console.log(`✓ ${result.path} is valid (platforms: ${result.platforms!.join(", ") || "none"}).`);
    for (const w of result.warnings) console.log(`! ${w.message}`);
  }
  return result.ok ? 0 : 1;
}
