import { z } from 'zod';

/**
 * The documented limits of what Drover accepts and stores (docs/core.md, "Limits"). Defined once
 * here: core's schemas enforce them, so a policy file (`drover validate`, the scheduler's
 * DROVER_CONFIG, `POST /apply`), the API's bodies and the client refuse the same input with the
 * same message. Lengths count UTF-16 code units (JavaScript's `length`); sizes count UTF-8 bytes of JSON.
 */

/** A payload as JSON: a routine's, a manual trigger's replacement, an ad-hoc job's. 256 KiB. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

/**
 * A routine's definition as JSON with every default filled in, its `payload` left out (that has
 * {@link MAX_PAYLOAD_BYTES} of its own): 32 KiB, whatever its fields add up to (every field at its
 * own limit would add up to about 42 KiB). So a stored definition is at most 288 KiB.
 */
export const MAX_ROUTINE_BYTES = 32 * 1024;

/** A selector routine's `selector.args` as JSON: 16 KiB. */
export const MAX_SELECTOR_ARGS_BYTES = 16 * 1024;

/** Labels on one routine. */
export const MAX_LABELS = 64;
/** A label key's name (the part after the optional `prefix/`), as in Kubernetes. */
export const MAX_LABEL_NAME_LENGTH = 63;
/** A label key's optional prefix (before the `/`), as in Kubernetes (a DNS subdomain's length). */
export const MAX_LABEL_PREFIX_LENGTH = 253;
/** A label value, as in Kubernetes. */
export const MAX_LABEL_VALUE_LENGTH = 63;

/** A queue or routine name (its pattern says so too: `[a-z0-9][a-z0-9._-]{0,127}`). */
export const MAX_NAME_LENGTH = 128;
/** A job type: a routine's `jobType`, a contract's and an enqueue's. */
export const MAX_JOB_TYPE_LENGTH = 200;
/** A cron trigger's expression. */
export const MAX_CRON_LENGTH = 256;
/** A cron trigger's `tz` (the longest IANA name is about 30 characters). */
export const MAX_TZ_LENGTH = 64;
/** An ISO 8601 instant (a once trigger's `at`, a pause's `until`). */
export const MAX_INSTANT_LENGTH = 64;
/** A routine's `owner`. */
export const MAX_OWNER_LENGTH = 200;
/** The name of a registered hook: a routine's `condition`, a selector's `provider`. */
export const MAX_HOOK_NAME_LENGTH = 200;
/** The URL an `http` condition calls. */
export const MAX_CONDITION_URL_LENGTH = 2048;
/** The headers an `http` condition sends, as JSON. */
export const MAX_CONDITION_HEADERS_BYTES = 8 * 1024;
/** The note of a pause. */
export const MAX_PAUSE_NOTE_LENGTH = 500;
/** An idempotency key: the client's `idempotencyKey`, the API's `Idempotency-Key` header. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 1024;

/** `n` bytes in the unit people read: `65536 bytes (64 KiB)`. */
export function bytesText(n: number): string {
  return n % 1024 === 0 ? `${n} bytes (${n / 1024} KiB)` : `${n} bytes`;
}

/** The UTF-8 size of `value` as JSON (0 for what JSON cannot carry). */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

/** A string of at most `max` characters; over it, the message says its length and the limit. */
export function boundedString(max: number) {
  return z.string().max(max, { error: (i) => `has ${String(i.input).length} characters; the limit is ${max}` });
}
