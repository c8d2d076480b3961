import type { RunView } from '@drover/store';

/** Most runs one listing reads (the stores' own ceiling). */
export const MAX_LISTING_DEPTH = 1000;

/** Where the previous page ended: the last run seen (newest-first order) and how many were read. */
export interface RunCursor {
  createdAt: number;
  id: string;
  /** Runs of the listing at or before the cursor (the next page reads this many more). */
  seen: number;
}

/** Newest first: by creation, then id (the stores' listing order). */
const isOlder = (v: Pick<RunView, 'createdAt' | 'id'>, c: Pick<RunCursor, 'createdAt' | 'id'>): boolean =>
  v.createdAt < c.createdAt || (v.createdAt === c.createdAt && v.id < c.id);

export function encodeCursor(c: RunCursor): string {
  return Buffer.from(JSON.stringify([c.createdAt, c.id, c.seen])).toString('base64url');
}

/** The cursor in a page token, or undefined when it is not one this API wrote. */
export function decodeCursor(token: string): RunCursor | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 3) return undefined;
    const [createdAt, id, seen] = v as unknown[];
    if (typeof createdAt !== 'number' || !Number.isSafeInteger(createdAt)) return undefined;
    if (typeof id !== 'string' || !id) return undefined;
    if (typeof seen !== 'number' || !Number.isSafeInteger(seen) || seen < 0) return undefined;
    return { createdAt, id, seen };
  } catch {
    return undefined;
  }
}

/** How many runs a page reads from the store: what earlier pages read plus one page, capped. */
export function listingDepth(cursor: RunCursor | undefined, pageSize: number): number {
  return Math.min(MAX_LISTING_DEPTH, (cursor?.seen ?? 0) + pageSize);
}

/** An entry of a newest-first listing: a run, or a reference to one not read yet. */
export type ListingEntry = Pick<RunView, 'createdAt' | 'id'>;

/** A page of runs, and how many of the listing's runs it read to fill it. */
export interface RunPage {
  items: RunView[];
  next?: RunCursor;
  /** Runs read (loaded and matched) for this page. */
  scanned: number;
  /**
   * A bounded scan (`scanLimit`) left runs unread: it stopped at `scanLimit` with more to read, or it
   * read to the end of a listing cut at {@link MAX_LISTING_DEPTH} (older runs exist unread).
   */
  scanLimitReached: boolean;
}

/**
 * One page of a newest-first listing: the runs after `cursor` that pass `admit` (on the entry,
 * before anything is read: e.g. a creation window) and `keep` (on the run), at most `pageSize`,
 * and the cursor of the next page — given when the page is full, when the read was cut at `depth`
 * (more runs may follow) and the listing ceiling is not reached, or when it read `scanLimit` runs
 * with more left. Entries are turned into runs by `load` (default: they are runs) as the page needs
 * them, at least `batch` at a time (default 1: as many as the page still lacks), so a page reads
 * the runs it shows (and those `keep` refuses), never the whole listing, and never more than
 * `scanLimit`; an entry `load` answers undefined for (gone meanwhile) is skipped.
 */
export async function pageOfRuns<E extends ListingEntry>(
  listing: E[],
  opts: {
    cursor?: RunCursor;
    pageSize: number;
    depth: number;
    admit?: (entry: E) => boolean;
    keep?: (v: RunView) => boolean;
    load?: (entries: E[]) => Promise<(RunView | undefined)[]>;
    scanLimit?: number;
    batch?: number;
  },
): Promise<RunPage> {
  const items: RunView[] = [];
  const load = opts.load ?? ((entries: E[]) => Promise.resolve(entries as unknown as RunView[]));
  const scanLimit = opts.scanLimit ?? Number.POSITIVE_INFINITY;
  const candidate = (entry: E) => (!opts.cursor || isOlder(entry, opts.cursor)) && (!opts.admit || opts.admit(entry));
  let last: { entry: E; index: number } | undefined;
  let scanned = 0;
  let i = 0;
  while (i < listing.length && items.length < opts.pageSize && scanned < scanLimit) {
    const want = Math.min(Math.max(opts.pageSize - items.length, opts.batch ?? 1), scanLimit - scanned);
    const batch: { entry: E; index: number }[] = [];
    for (; i < listing.length && batch.length < want; i++) {
      const entry = listing[i]!;
      if (candidate(entry)) batch.push({ entry, index: i });
    }
    if (!batch.length) break;
    const runs = await load(batch.map((b) => b.entry));
    for (const [k, b] of batch.entries()) {
      // A batch larger than the page still lacks: the rest is the next page's (read again there).
      if (items.length === opts.pageSize) break;
      last = b;
      scanned++;
      const run = runs[k];
      if (run && (!opts.keep || opts.keep(run))) items.push(run);
    }
  }
  const full = items.length === opts.pageSize;
  const cut = listing.length >= opts.depth && opts.depth < MAX_LISTING_DEPTH;
  const moreAfterLast = last !== undefined && listing.slice(last.index + 1).some(candidate);
  // A short page of a bounded scan: stopped at the scan limit with runs left, or read to the end of a
  // listing cut at its ceiling (older runs were not looked at). Either way: narrow the range.
  const scanLimitReached =
    opts.scanLimit !== undefined &&
    !full &&
    (moreAfterLast ? scanned >= scanLimit : listing.length >= MAX_LISTING_DEPTH);
  const page = { items, scanned, scanLimitReached };
  const stoppedAtLimit = scanned >= scanLimit && moreAfterLast;
  if (!last || !((full && (moreAfterLast || cut)) || (!full && cut) || stoppedAtLimit)) return page;
  return { ...page, next: { createdAt: last.entry.createdAt, id: last.entry.id, seen: last.index + 1 } };
}
