import type { ParkedCursor, ParkedRun, RunStore } from '@drover/store';
import { matchesParkedFilter, type ParkedFilter } from './parked-filter';

/** One parked run met on a walk: where it is, whether the filter selects it, whether any follows. */
export interface ParkedStep {
  run: ParkedRun;
  at: ParkedCursor;
  matches: boolean;
  more: boolean;
}

const BATCH = 500;

/**
 * Walks a queue's parked area newest first from `from` (or from the filter's `before`), reading
 * it in batches (the first of `firstBatch` runs, each next one twice as large up to 500, so a
 * page reads little more than it shows), and stops at the filter's `after`: time bounds narrow
 * the walk itself, the other fields are checked run by run.
 */
export async function* walkParked(
  runs: RunStore,
  queue: string,
  filter: ParkedFilter,
  from?: ParkedCursor,
  firstBatch = BATCH,
): AsyncGenerator<ParkedStep> {
  let after = from ?? (filter.before !== undefined ? { parkedAt: filter.before, id: '' } : undefined);
  for (let batch = Math.min(BATCH, Math.max(1, firstBatch)); ; batch = Math.min(BATCH, batch * 2)) {
    const page = await runs.pageParked(queue, { after, limit: batch });
    for (const [i, { run, at }] of page.items.entries()) {
      if (filter.after !== undefined && at.parkedAt <= filter.after) return;
      const more = i < page.items.length - 1 || page.next !== undefined;
      yield { run, at, matches: matchesParkedFilter(filter, run, at.parkedAt), more };
    }
    if (!page.next) return;
    after = page.next;
  }
}

/**
 * A page of the parked runs `filter` selects: up to `size` of them, reading at most `maxScan`
 * runs (a rare filter on a long area answers a short page with a `next` rather than scanning it
 * all in one request).
 */
export async function pageOfParked(
  runs: RunStore,
  queue: string,
  filter: ParkedFilter,
  opts: { from?: ParkedCursor; size: number; maxScan: number },
): Promise<{ runs: ParkedRun[]; next?: ParkedCursor }> {
  const out: ParkedRun[] = [];
  let scanned = 0;
  for await (const step of walkParked(runs, queue, filter, opts.from, opts.size)) {
    scanned++;
    if (step.matches) out.push(step.run);
    if (out.length >= opts.size || scanned >= opts.maxScan) return { runs: out, ...(step.more && { next: step.at }) };
  }
  return { runs: out };
}

/**
 * The ids of every parked run `filter` selects now, newest parked first. A filter on time alone
 * is answered from the parked area's index without reading a run.
 */
export async function matchingParkedIds(runs: RunStore, queue: string, filter: ParkedFilter): Promise<string[]> {
  if (filter.jobType === undefined && filter.routine === undefined && filter.error === undefined) {
    return runs.parkedIds(queue, { before: filter.before, after: filter.after });
  }
  const ids: string[] = [];
  for await (const step of walkParked(runs, queue, filter)) if (step.matches) ids.push(step.run.id);
  return ids;
}

/** Page tokens are opaque to callers: a cursor, base64url-encoded. */
export function encodeParkedToken(at: ParkedCursor): string {
  return Buffer.from(JSON.stringify([at.parkedAt, at.id])).toString('base64url');
}

export function decodeParkedToken(token: string): ParkedCursor | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string') {
      return { parkedAt: v[0] as number, id: v[1] };
    }
  } catch {
    /* not one of ours */
  }
  return undefined;
}
