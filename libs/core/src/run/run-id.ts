import { createHash } from 'node:crypto';
import { NAME_PATTERN } from '../model/name.schema';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The deterministic run id of a routine's slot: `r-<routine>-<slotMs>`, or `r-<routine>-<slotMs>.<rev>` for
 * revision `rev` > 0 (a slot whose run was armed ahead and then withdrawn is decided again under a new id, so
 * the withdrawn run can never be mistaken for the new one). The same slot and revision always yield the same id,
 * so several schedulers firing it produce one run. Contains no `:`. Throws `RangeError` for an invalid routine
 * name, a slot that is not a non-negative integer (epoch ms) or a negative revision.
 */
export function runIdForSlot(routineName: string, slotMs: number, rev = 0): string {
  if (!NAME_PATTERN.test(routineName)) throw new RangeError(`invalid routine name ${JSON.stringify(routineName)}`);
  if (!Number.isSafeInteger(slotMs) || slotMs < 0)
    throw new RangeError(`slot must be a non-negative integer, got ${slotMs}`);
  if (!Number.isSafeInteger(rev) || rev < 0)
    throw new RangeError(`revision must be a non-negative integer, got ${rev}`);
  return rev === 0 ? `r-${routineName}-${slotMs}` : `r-${routineName}-${slotMs}.${rev}`;
}

/** Inverse of {@link runIdForSlot}; `undefined` for any other id. */
export function parseSlotRunId(id: string): { routine: string; slotMs: number; rev: number } | undefined {
  const m = /^r-(.+)-(\d+)(?:\.(\d+))?$/.exec(id);
  if (!m || !NAME_PATTERN.test(m[1] as string)) return undefined;
  const slotMs = Number(m[2]);
  const rev = Number(m[3] ?? 0);
  return Number.isSafeInteger(slotMs) && Number.isSafeInteger(rev)
    ? { routine: m[1] as string, slotMs, rev }
    : undefined;
}

function randomChars(random: () => number, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    const r = Math.min(Math.max(random(), 0), 0.9999999999);
    out += ALPHABET[Math.floor(r * ALPHABET.length)];
  }
  return out;
}

/** Random characters in a fresh ad-hoc id: 36^10 ≈ 3.7e15 (~52 bits) per millisecond. */
const AD_HOC_RANDOM_CHARS = 10;

/**
 * A fresh id for an ad-hoc (or manual) run: `<prefix>-<now base36>-<10 random base36 chars>`, 21
 * characters until 2059. Sorts by creation time; `random` returns values in [0, 1). Prefix `a` for
 * ad-hoc jobs, `m` for manual triggers. Short because a queued run stores its id three times (key,
 * wait list, options); two ids drawn in the same millisecond collide with odds 1 in 3.7e15 (the
 * rate this is safe for is in docs/core.md, "Run ids"). Ids minted before carried 16 random
 * characters; every reader takes both, as it takes any string.
 */
export function adHocRunId(now: number, random: () => number, prefix: 'a' | 'm' = 'a'): string {
  return `${prefix}-${Math.max(0, Math.floor(now)).toString(36)}-${randomChars(random, AD_HOC_RANDOM_CHARS)}`;
}

/** The run id for a caller's idempotency key: `k-<first 32 hex of sha256(key)>`. Same key → same run. */
export function runIdForIdempotencyKey(key: string): string {
  // A Hash object, not the one-shot crypto.hash: the packages support Node.js 20 before 20.12, which lacks it.
  return `k-${createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32)}`;
}

/**
 * A fresh batch id: `bt-<now base36>-<10 random base36 chars>`, sorting by creation time like an
 * ad-hoc run id (and as unlikely to collide). Its callback runs' ids derive from it (the run maker's
 * `batch-callback` ids), so the batch names them before they exist.
 */
export function newBatchId(now: number, random: () => number): string {
  return `bt-${Math.max(0, Math.floor(now)).toString(36)}-${randomChars(random, AD_HOC_RANDOM_CHARS)}`;
}
