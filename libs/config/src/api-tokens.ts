import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './config-error';

/** API roles, weakest first: each may do everything the ones before it may. */
export const API_ROLES = ['viewer', 'operator', 'admin'] as const;
export type ApiRole = (typeof API_ROLES)[number];

/** One bearer token the api accepts: only its SHA-256 is stored, never the token itself. */
export interface ApiToken {
  name: string;
  role: ApiRole;
  /** Lower-case hex SHA-256 of the token. */
  sha256: string;
}

const tokensSchema = z.strictObject({
  tokens: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[A-Za-z0-9_.@:-]{1,128}$/, {
          message: 'must be 1-128 letters, digits or "_.@:-" (it is written to the audit log)',
        }),
        role: z.enum(API_ROLES),
        sha256: z
          .string()
          .regex(/^[0-9a-fA-F]{64}$/, { message: "must be the 64 hex digits of the token's SHA-256 (sha256sum)" })
          .transform((s) => s.toLowerCase()),
      }),
      { error: 'must be a list of {name, role, sha256}' },
    )
    .min(1, { message: 'must list at least one token' }),
});

const VARIABLE = 'DROVER_API_TOKENS_FILE';
const EXAMPLE = '/etc/drover/tokens.yaml';

/** Parses the text of a tokens file. Throws {@link ConfigError} naming the variable and the field. */
export function parseApiTokens(text: string, path: string): ApiToken[] {
  let raw: unknown;
  try {
    raw = parseYaml(text, { maxAliasCount: 10 });
  } catch (err) {
    throw new ConfigError(VARIABLE, `${path} is not valid YAML/JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof raw !== 'object' || raw === null || !('tokens' in raw)) {
    throw new ConfigError(VARIABLE, `${path} has no "tokens:" list of {name, role, sha256}`, EXAMPLE);
  }
  const parsed = tokensSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length ? issue.path.join('.') : '(top level)';
    throw new ConfigError(VARIABLE, `${path}: ${at} ${issue.message}`, EXAMPLE);
  }
  const seen = new Set<string>();
  for (const [i, t] of parsed.data.tokens.entries()) {
    if (seen.has(t.name)) throw new ConfigError(VARIABLE, `${path}: tokens.${i}.name "${t.name}" is listed twice`);
    seen.add(t.name);
  }
  const hashes = new Set(parsed.data.tokens.map((t) => t.sha256));
  if (hashes.size !== parsed.data.tokens.length) {
    throw new ConfigError(VARIABLE, `${path}: two tokens have the same sha256 (one token, two names)`);
  }
  return parsed.data.tokens;
}

/** Reads the file named by DROVER_API_TOKENS_FILE. */
export function loadApiTokensFile(path: string): ApiToken[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(VARIABLE, `cannot read "${path}": ${(err as Error).message}`, EXAMPLE);
  }
  return parseApiTokens(text, path);
}
