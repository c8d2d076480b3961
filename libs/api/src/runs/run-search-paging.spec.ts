import type { RunView } from '@drover/store';
import { MAX_LISTING_DEPTH, pageOfRuns, type RunCursor } from './run-paging';

/** Runs r9 … r0, newest first (createdAt 9 … 0). */
const listing = (n: number): RunView[] =>
  Array.from({ length: n }, (_, k) => n - 1 - k).map((i) => ({ id: `r${i}`, createdAt: i }) as unknown as RunView);
const ids = (runs: RunView[]) => runs.map((r) => r.id);

describe('run paging with a search', () => {
  it('reads at most scanLimit runs a page, says so, and the next page goes on where it stopped', async () => {
    const all = listing(10);
    const loaded: string[] = [];
    const load = (entries: RunView[]) => {
      loaded.push(...ids(entries));
      return Promise.resolve(entries);
    };
    const keep = (r: RunView) => r.id === 'r2' || r.id === 'r8';
    const opts = { pageSize: 5, depth: MAX_LISTING_DEPTH, load, keep, scanLimit: 4, batch: 100 };
    const first = await pageOfRuns(all, opts);
    expect(ids(first.items)).toEqual(['r8']);
    expect(loaded).toEqual(['r9', 'r8', 'r7', 'r6']);
    expect(first).toMatchObject({ scanned: 4, scanLimitReached: true, next: { id: 'r6', seen: 4 } });
    const second = await pageOfRuns(all, { ...opts, cursor: first.next! });
    expect(ids(second.items)).toEqual(['r2']);
    expect(second).toMatchObject({ scanned: 4, scanLimitReached: true, next: { id: 'r2' } });
    const third = await pageOfRuns(all, { ...opts, cursor: second.next! });
    expect(third).toEqual({ items: [], scanned: 2, scanLimitReached: false });
  });

  it('does not claim the limit when the listing ended exactly there', async () => {
    const page = await pageOfRuns(listing(4), {
      pageSize: 5,
      depth: MAX_LISTING_DEPTH,
      keep: () => false,
      scanLimit: 4,
    });
    expect(page).toEqual({ items: [], scanned: 4, scanLimitReached: false });
  });

  it('says when a search read to the end of a listing cut at its ceiling', async () => {
    const all = listing(MAX_LISTING_DEPTH);
    const page = await pageOfRuns(all, {
      pageSize: 5,
      depth: MAX_LISTING_DEPTH,
      keep: () => false,
      scanLimit: 2000,
      batch: 100,
    });
    expect(page).toEqual({ items: [], scanned: MAX_LISTING_DEPTH, scanLimitReached: true });
    const plain = await pageOfRuns(all, { pageSize: 5, depth: MAX_LISTING_DEPTH, keep: () => false });
    expect(plain.scanLimitReached).toBe(false);
  });

  it('refuses entries outside the window before reading them, and counts only what it read', async () => {
    const all = listing(10);
    const loaded: string[] = [];
    const load = (entries: RunView[]) => {
      loaded.push(...ids(entries));
      return Promise.resolve(entries);
    };
    const admit = (e: { createdAt: number }) => e.createdAt >= 3 && e.createdAt <= 6;
    const page = await pageOfRuns(all, { pageSize: 10, depth: MAX_LISTING_DEPTH, admit, load, batch: 100 });
    expect(ids(page.items)).toEqual(['r6', 'r5', 'r4', 'r3']);
    expect(loaded).toEqual(['r6', 'r5', 'r4', 'r3']);
    expect(page.scanned).toBe(4);
    expect(page.next).toBeUndefined();
  });

  it('reads in batches bigger than the page lacks, yet pages never skip or repeat a run', async () => {
    const all = listing(10);
    const seen: string[] = [];
    let cursor: RunCursor | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await pageOfRuns(all, {
        ...(cursor && { cursor }),
        pageSize: 3,
        depth: MAX_LISTING_DEPTH,
        batch: 100,
      });
      seen.push(...ids(page.items));
      if (!page.next) break;
      cursor = page.next;
    }
    expect(seen).toEqual(ids(all));
  });
});
