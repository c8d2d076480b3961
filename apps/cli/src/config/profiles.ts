import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { CliError, UsageError } from '../cli-error';
import { wellFormedProfileFile, type Profile, type ProfileFile } from './profile-shape';

/** Where the API is and who we are to it, after flags, environment and profile are combined. */
export interface ApiTarget {
  baseUrl: string;
  token?: string;
  /** The profile the values came from, if any (for messages). */
  profile?: string;
}

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/** `DROVER_CLI_CONFIG`, else `$XDG_CONFIG_HOME/drover/cli.yaml`, else `~/.config/drover/cli.yaml`. */
export function profileFilePath(env: NodeJS.ProcessEnv): string {
  if (env.DROVER_CLI_CONFIG) return env.DROVER_CLI_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'drover', 'cli.yaml');
}

/** The profile file, or undefined when there is none. A broken file is an error naming the field. */
export function readProfileFile(path: string): ProfileFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read the profile file ${path}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    // Loaded here, not at start: only a start that reads the file pays for the YAML parser.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { parse } = require('yaml') as typeof import('yaml');
    raw = parse(text) ?? {};
  } catch (err) {
    throw new CliError(`the profile file ${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const file = wellFormedProfileFile(raw);
  if (file) return file;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { fileSchema } = require('./profile-schema') as typeof import('./profile-schema');
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.join('.') || '(top level)';
    throw new CliError(`the profile file ${path}: ${at}: ${issue.message}`);
  }
  return parsed.data;
}

export interface TargetFlags {
  apiUrl?: string;
  token?: string;
  profile?: string;
}

/**
 * Flags beat environment (`DROVER_API_URL`, `DROVER_TOKEN`, `DROVER_PROFILE`), which beats the
 * profile file's current profile; the URL defaults to the quick start's api on loopback.
 */
export function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv): ApiTarget {
  const path = profileFilePath(env);
  const wanted = flags.profile ?? env.DROVER_PROFILE;
  const needProfile =
    wanted !== undefined || !(flags.apiUrl ?? env.DROVER_API_URL) || !(flags.token ?? env.DROVER_TOKEN);
  const file = needProfile ? readProfileFile(path) : undefined;
  const name = wanted ?? file?.current;
  let profile: Profile | undefined;
  if (name !== undefined) {
    profile = file?.profiles[name];
    if (!profile) {
      const known = Object.keys(file?.profiles ?? {});
      throw new UsageError(
        `no profile "${name}" in ${path}` +
          (known.length ? ` (profiles: ${known.join(', ')})` : ' (the file has none)'),
      );
    }
  }
  const baseUrl = flags.apiUrl ?? env.DROVER_API_URL ?? profile?.url ?? DEFAULT_API_URL;
  checkUrl(baseUrl);
  const token = flags.token ?? env.DROVER_TOKEN ?? profile?.token ?? readTokenFile(profile?.tokenFile, path);
  return { baseUrl, ...(token && { token }), ...(profile && name !== undefined && { profile: name }) };
}

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`the API URL "${url}" is not a URL (e.g. http://127.0.0.1:3000)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`the API URL "${url}" must start with http:// or https://`);
  }
}

function readTokenFile(file: string | undefined, profilePath: string): string | undefined {
  if (!file) return undefined;
  const expanded = file.startsWith('~/') ? join(homedir(), file.slice(2)) : file;
  const path = isAbsolute(expanded) ? expanded : resolve(join(profilePath, '..'), expanded);
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new CliError(`cannot read the token file ${path}: ${(err as Error).message}`);
  }
}
