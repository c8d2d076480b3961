import { pacer } from './bulk-reads';

/** Busy work of about `ms` (a loop body that does not await on its own). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // nothing: only time passes
  }
}

describe('pacer (long loops leave the event loop turns)', () => {
  it('lets a timer that came due run within a few milliseconds of a long loop, not after it', async () => {
    const pace = pacer();
    let firedAt = -1;
    let i = 0;
    setTimeout(() => (firedAt = i), 0);
    // 200 items of 0.5 ms: 100 ms of work in all.
    for (; i < 200; i++) {
      await pace();
      spin(0.5);
    }
    expect(firedAt).toBeGreaterThanOrEqual(0);
    expect(firedAt).toBeLessThan(40);
  });
});
