import { formatRunLogLine } from '@drover/core';
import { testStores } from '@drover/testing';

const T = 1_764_145_000_000;

describe("a run's log read by line number (against a real redis-server)", () => {
  const s = testStores('runlogs');
  afterAll(() => s.close());

  it('pages by line number, stays right after the oldest lines were dropped, and counts what is gone', async () => {
    await s.registry.put([{ name: 'q' }]);
    const queue = s.bull.get('q');
    await queue.add('t', {}, { jobId: 'l-1' });
    for (let n = 1; n <= 7; n++) await queue.addJobLog('l-1', formatRunLogLine(n, T + n, `line ${n}`), 5);

    const all = await s.runs.logs('l-1');
    expect(all).toEqual({
      lines: [3, 4, 5, 6, 7].map((n) => ({ seq: n, at: T + n, message: `line ${n}` })),
      next: 8,
      dropped: 2,
    });
    const page = await s.runs.logs('l-1', { from: 4, limit: 2 });
    expect(page!.lines.map((l) => l.seq)).toEqual([4, 5]);
    expect(page!.next).toBe(6);
    // Asking for lines already dropped starts at the oldest kept; past the end answers none.
    expect((await s.runs.logs('l-1', { from: 1, limit: 1 }))!.lines.map((l) => l.seq)).toEqual([3]);
    expect(await s.runs.logs('l-1', { from: 8 })).toEqual({ lines: [], next: 8, dropped: 2 });
  });

  it('numbers lines a plain job.log wrote by their place; no lines, and an unknown run, answer so', async () => {
    const queue = s.bull.get('q');
    await queue.add('t', {}, { jobId: 'l-2' });
    expect(await s.runs.logs('l-2')).toEqual({ lines: [], next: 1, dropped: 0 });
    await queue.addJobLog('l-2', 'plain one');
    await queue.addJobLog('l-2', 'plain two');
    expect((await s.runs.logs('l-2', { from: 2 }))!.lines).toEqual([{ seq: 2, message: 'plain two' }]);
    expect(await s.runs.logs('no-such-run')).toBeNull();
  });
});
