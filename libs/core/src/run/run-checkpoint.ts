/**
 * A run's checkpoint: the state a handler recorded to resume from (`ctx.checkpoint(state)`), kept
 * on the run's job and handed to its next attempt (`ctx.lastCheckpoint`). Stored as one compact
 * JSON object, `{"at":1764145000000,"attempt":2,"size":11,"state":{"next":40}}`: `at` when it was
 * written (epoch ms, cluster clock), `attempt` the attempt that wrote it, `size` the state's
 * length in UTF-8 bytes as stored.
 */
export interface RunCheckpoint {
  at: number;
  attempt: number;
  size: number;
  state: unknown;
}

/** Largest state a checkpoint may hold, in UTF-8 bytes of its JSON. */
export const CHECKPOINT_MAX_BYTES = 64 * 1024;

/** Why a state cannot be a checkpoint. */
export type CheckpointProblem =
  { problem: 'not-json'; detail: string } | { problem: 'too-large'; size: number; max: number };

/**
 * The first place where `value` would not come back from JSON as it went in, or undefined when it
 * would. A property whose value is `undefined` is allowed (it reads back as missing, which reads the
 * same); a Date, Map, class instance, function, NaN or `undefined` in an array is not.
 */
function lossyAt(value: unknown, path: string): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is ${value}, which JSON cannot hold`;
    case 'object':
      break;
    default:
      return `${path} is a ${typeof value}, which JSON cannot hold`;
  }
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (v === undefined) return `${path}[${i}] is undefined (JSON reads it back as null)`;
      const found = lossyAt(v, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const name = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
    return `${path} is a ${name}, not a plain object (store plain JSON: numbers, strings, arrays, objects)`;
  }
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const found = lossyAt(v, `${path}.${k}`);
    if (found) return found;
  }
  return undefined;
}

/**
 * The stored form of a checkpoint of `state`, written by `attempt` at `at`; or why it cannot be
 * one: not plain JSON (it would not read back as it was written), or longer than `maxBytes`. Pure.
 */
export function encodeCheckpoint(
  state: unknown,
  at: number,
  attempt: number,
  maxBytes = CHECKPOINT_MAX_BYTES,
): { raw: string; size: number } | CheckpointProblem {
  if (state === undefined) return { problem: 'not-json', detail: 'the state is undefined' };
  let json: string;
  try {
    json = JSON.stringify(state);
  } catch (err) {
    // A cycle, a BigInt, a throwing toJSON.
    return { problem: 'not-json', detail: (err as Error).message };
  }
  const size = Buffer.byteLength(json, 'utf8');
  if (size > maxBytes) return { problem: 'too-large', size, max: maxBytes };
  const lossy = lossyAt(state, 'state');
  if (lossy) return { problem: 'not-json', detail: lossy };
  return { raw: `{"at":${at},"attempt":${attempt},"size":${size},"state":${json}}`, size };
}

/** The checkpoint of its stored form; undefined for a value that is not one (never throws). Pure. */
export function decodeCheckpoint(raw: string | undefined): RunCheckpoint | undefined {
  if (raw === undefined) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<RunCheckpoint> | null;
    if (!v || typeof v.at !== 'number' || typeof v.attempt !== 'number' || !('state' in v)) return undefined;
    return { at: v.at, attempt: v.attempt, size: typeof v.size === 'number' ? v.size : 0, state: v.state };
  } catch {
    return undefined;
  }
}
