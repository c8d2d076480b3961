/** One profile of the CLI config file. */
export interface Profile {
  url: string;
  token?: string;
  tokenFile?: string;
}

/** The CLI config file (`profile-schema.ts` is its schema). */
export interface ProfileFile {
  current?: string;
  profiles: Record<string, Profile>;
}

const FILE_KEYS = new Set(['current', 'profiles']);
const PROFILE_KEYS = new Set(['url', 'token', 'tokenFile']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const onlyKeys = (value: Record<string, unknown>, keys: Set<string>) => Object.keys(value).every((k) => keys.has(k));
const filled = (value: unknown) => typeof value === 'string' && value.length > 0;
const optionalFilled = (value: unknown) => value === undefined || filled(value);

function isProfile(value: unknown): value is Profile {
  return (
    isRecord(value) &&
    onlyKeys(value, PROFILE_KEYS) &&
    filled(value.url) &&
    optionalFilled(value.token) &&
    optionalFilled(value.tokenFile) &&
    !(value.token && value.tokenFile)
  );
}

/**
 * `raw` as a profile file when it is a well-formed one, else undefined. Every `drover` start that
 * reads the file passes here, so it checks by hand what the zod schema says, and the schema (zod
 * is slow to load) is asked only to explain a file this refuses.
 */
export function wellFormedProfileFile(raw: unknown): ProfileFile | undefined {
  if (!isRecord(raw) || !onlyKeys(raw, FILE_KEYS)) return undefined;
  if (raw.current !== undefined && typeof raw.current !== 'string') return undefined;
  const profiles = raw.profiles === undefined ? {} : raw.profiles;
  if (!isRecord(profiles) || !Object.values(profiles).every(isProfile)) return undefined;
  return {
    ...(raw.current !== undefined && { current: raw.current }),
    profiles: profiles as Record<string, Profile>,
  };
}
