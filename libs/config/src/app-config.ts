import type { Bundle } from '@drover/core';
import { loadApiTokensFile, type ApiToken } from './api-tokens';
import { CONFIG_EXIT_CODE, ConfigError } from './config-error';
import { loadBundleFile } from './config-file';
import { parseEnv, type DroverEnv } from './env.schema';
import { TLS_FILE_VARIABLES, TlsFileError, readTlsFiles } from './redis-tls';

/** Everything a Drover process is configured with: the environment and the optional policy file. */
export class AppConfig {
  constructor(
    readonly app: string,
    readonly env: DroverEnv,
    readonly bundle?: Bundle,
    /** The api's bearer tokens (DROVER_API_TOKENS_FILE); undefined = development mode. */
    readonly apiTokens?: ApiToken[],
  ) {}
}

/**
 * The single place that reads process.env. Used before Nest boots so that a bad value stops
 * the process at once with exit code 2 and one line on stderr.
 */
export function loadAppConfig(app: string, defaults: { port?: number } = {}, env = process.env): AppConfig {
  const parsed = parseEnv(env, defaults);
  const bundle = parsed.configFile ? loadBundleFile(parsed.configFile) : undefined;
  const apiTokens = parsed.apiTokensFile ? loadApiTokensFile(parsed.apiTokensFile) : undefined;
  return new AppConfig(app, withTlsPem(parsed), bundle, apiTokens);
}

/** The environment with the PEM files of REDIS_TLS_*_FILE read into its Redis target. */
function withTlsPem(env: DroverEnv): DroverEnv {
  if (Object.keys(env.redisTlsFiles).length === 0) return env;
  try {
    return { ...env, redis: { ...env.redis, pem: readTlsFiles(env.redisTlsFiles) } };
  } catch (err) {
    if (err instanceof TlsFileError) throw new ConfigError(TLS_FILE_VARIABLES[err.part], err.problem);
    throw err;
  }
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
