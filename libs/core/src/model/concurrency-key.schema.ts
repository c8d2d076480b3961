import { z } from 'zod';
import type { PayloadIssue } from './payload.policy';

/** The longest concurrency key a run may carry (it is part of two Redis key names). */
export const MAX_CONCURRENCY_KEY_LENGTH = 128;

/** Where a queue's runs take their concurrency key from: the enqueue option, or a payload field (dotted path). */
const KEY_SOURCE = /^(option|payload(\.[A-Za-z0-9_-]+)+)$/;

/**
 * A per-key concurrency limit on a queue: runs sharing one key (e.g. a tenant) never run more than
 * `limit` at once, cluster-wide, while runs of other keys keep flowing. `source` is `option` (the
 * enqueue option `concurrencyKey`) or `payload.<field>[.<field>...]` (a string or number there).
 */
export const concurrencyKeyPolicySchema = z.strictObject({
  source: z.string().regex(KEY_SOURCE, { message: 'must be "option" or "payload.<field>" (a dotted path)' }),
  limit: z.number().int().positive().max(10_000),
});

export type ConcurrencyKeyPolicy = z.infer<typeof concurrencyKeyPolicySchema>;

/** A run's resolved key: `key` (absent = the run is not limited), or why the run is refused. */
export type ResolvedKey = { key?: string } | { issue: PayloadIssue };

/**
 * The concurrency key of a run of a queue with `policy`: read from the enqueue option or the
 * payload field. A run without one (no option, field missing or null) is not limited: it runs as a
 * plain run. A key that is not a string or a finite number, is empty or longer than
 * {@link MAX_CONCURRENCY_KEY_LENGTH} refuses the run. Pure.
 */
export function resolveConcurrencyKey(
  policy: ConcurrencyKeyPolicy | undefined,
  payload: unknown,
  option: string | undefined,
): ResolvedKey {
  if (!policy) return {};
  let value: unknown;
  let path: string[] = [];
  if (policy.source === 'option') value = option;
  else {
    path = policy.source.split('.').slice(1);
    value = payload;
    for (const p of path) {
      value =
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? (value as Record<string, unknown>)[p]
          : undefined;
    }
  }
  if (value === undefined || value === null) return {};
  const where = policy.source === 'option' ? 'the concurrencyKey option' : `payload.${path.join('.')}`;
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string')
    return { issue: { path, message: `${where} is the concurrency key: use a string or a number` } };
  if (value.length === 0 || value.length > MAX_CONCURRENCY_KEY_LENGTH) {
    return {
      issue: { path, message: `${where} is the concurrency key: 1 to ${MAX_CONCURRENCY_KEY_LENGTH} characters` },
    };
  }
  return { key: value };
}
