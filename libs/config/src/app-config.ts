import type { Bundle } from '@drover/core';
import { CONFIG_EXIT_CODE, ConfigError } from './config-error';
import { loadBundleFile } from './config-file';
import { parseEnv, type DroverEnv } from './env.schema';

/** Everything a Drover process is configured with: the environment and the optional policy file. */
export class AppConfig {
  constructor(
    readonly app: string,
    readonly env: DroverEnv,
    readonly bundle?: Bundle,
  ) {}
}

/**
 * The single place that reads process.env. Used before Nest boots so that a bad value stops
 * the process at once with exit code 2 and one line on stderr.
 */
export function loadAppConfig(app: string, defaults: { port?: number } = {}, env = process.env): AppConfig {
  const parsed = parseEnv(env, defaults);
  const bundle = parsed.configFile ? loadBundleFile(parsed.configFile) : undefined;
  return new AppConfig(app, parsed, bundle);
}

export function loadAppConfigOrExit(app: string, defaults: { port?: number } = {}): AppConfig {
  try {
    return loadAppConfig(app, defaults);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`drover ${app}: invalid configuration: ${err.message}\n`);
      process.exit(CONFIG_EXIT_CODE);
    }
    throw err;
  }
}
