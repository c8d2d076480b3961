import type { RunView } from '@drover/store';
import type { RunCursor } from './run-paging';
import { decodeCursor, encodeCursor, listingDepth, MAX_LISTING_DEPTH, pageOfRuns } from './run-paging';

/** Runs r9 … r0, newest first (createdAt 9 … 0). */
const listing = (n: number, jobType = (i: number) => (i % 2 ? 'odd' : 'even')): RunView[] =>
  Array.from({ length: n }, (_, k) => n - 1 - k).map(
    (i) => ({ id: `r${i}`, createdAt: i, jobType: jobType(i) }) as unknown as RunView,
  );
const ids = (runs: RunView[]) => runs.map((r) => r.id);

describe('run paging', () => {
  it('round-trips a cursor and refuses tokens it did not write', async () => {
    const c = { createdAt: 1_700_000_000_000, id: 'a-x', seen: 50 };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    for (const bad of [
      '',
      'nope',
      Buffer.from('[1,"a"]').toString('base64url'),
      Buffer.from('[1,"",0]').toString('base64url'),
    ]) {
      expect(decodeCursor(bad)).toBeUndefined();
    }
    expect(decodeCursor(Buffer.from('[1.5,"a",0]').toString('base64url'))).toBeUndefined();
  });

  it('reads one more page than the pages before it, up to the ceiling', async () => {
    expect(listingDepth(undefined, 50)).toBe(50);
    expect(listingDepth({ createdAt: 0, id: 'x', seen: 50 }, 50)).toBe(100);
    expect(listingDepth({ createdAt: 0, id: 'x', seen: 990 }, 50)).toBe(MAX_LISTING_DEPTH);
  });

  it('walks a listing page by page with no run twice and none left out', async () => {
    const all = listing(10);
    const seen: string[] = [];
    let cursor: RunCursor | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const depth = listingDepth(cursor, 3);
      const page = await pageOfRuns(all.slice(0, depth), { ...(cursor && { cursor }), pageSize: 3, depth });
      seen.push(...ids(page.items));
      if (!page.next) break;
      cursor = page.next;
    }
    expect(seen).toEqual(ids(all));
  });

  it('loads only the entries after the cursor that the page shows, a page at a time', async () => {
    const all = listing(10);
    const loaded: string[] = [];
    const load = (entries: RunView[]) => {
      loaded.push(...ids(entries));
      return Promise.resolve(entries.map((e) => (e.id === 'r5' ? undefined : e)));
    };
    const first = await pageOfRuns(all, { pageSize: 3, depth: 10, load });
    expect(ids(first.items)).toEqual(['r9', 'r8', 'r7']);
    expect(loaded).toEqual(['r9', 'r8', 'r7']);
    loaded.length = 0;
    // r5 is gone (load answers undefined): skipped, and one more is read to fill the page.
    const second = await pageOfRuns(all, { cursor: first.next!, pageSize: 3, depth: 10, load });
    expect(ids(second.items)).toEqual(['r6', 'r4', 'r3']);
    expect(loaded).toEqual(['r6', 'r5', 'r4', 'r3']);
  });

  it('gives no next page when the listing ended before the page filled', async () => {
    const page = await pageOfRuns(listing(2), { pageSize: 3, depth: 3 });
    expect(ids(page.items)).toEqual(['r1', 'r0']);
    expect(page.next).toBeUndefined();
  });

  it('with a filter, continues past a read that was cut even when the page is short', async () => {
    const all = listing(10);
    const page = await pageOfRuns(all.slice(0, 4), { pageSize: 4, depth: 4, keep: (r) => r.jobType === 'odd' });
    expect(ids(page.items)).toEqual(['r9', 'r7']);
    expect(page.next).toEqual({ createdAt: 6, id: 'r6', seen: 4 });
    const depth = listingDepth(page.next, 4);
    const second = await pageOfRuns(all.slice(0, depth), {
      cursor: page.next!,
      pageSize: 4,
      depth,
      keep: (r) => r.jobType === 'odd',
    });
    expect(ids(second.items)).toEqual(['r5', 'r3']);
    const third = await pageOfRuns(all, {
      cursor: second.next!,
      pageSize: 4,
      depth: listingDepth(second.next, 4),
      keep: (r) => r.jobType === 'odd',
    });
    expect(ids(third.items)).toEqual(['r1']);
    expect(third.next).toBeUndefined();
  });

  it('orders runs created in the same millisecond by id', async () => {
    const same = ['c', 'b', 'a'].map((id) => ({ id, createdAt: 5, jobType: 'x' }) as unknown as RunView);
    const first = await pageOfRuns(same, { pageSize: 1, depth: 3 });
    expect(ids(first.items)).toEqual(['c']);
    const second = await pageOfRuns(same, { cursor: first.next!, pageSize: 1, depth: 3 });
    expect(ids(second.items)).toEqual(['b']);
  });
});
