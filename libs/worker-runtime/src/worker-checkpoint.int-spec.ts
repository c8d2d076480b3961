import { spawn } from 'node:child_process';
import { testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { newRun, processed, producer, startRuntime, type Harness, type RuntimeHandle } from './testing/runtime-harness';

/** Checkpoint and resume (ctx.checkpoint, ctx.lastCheckpoint) with a real worker runtime on a real Redis. */
describe('checkpoints (against a real redis-server)', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  beforeEach(async () => {
    p = await producer(uniquePrefix('ckpt'), [{ name: 'q', maxAttempts: 3, backoff: { type: 'fixed', delayMs: 20 } }]);
  });

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });

  /**
   * Every command naming this test's keys while `work` runs (test files share one Redis), as
   * `redis-cli monitor` prints them: ioredis's own MONITOR mode trips over BullMQ's long EVALs.
   */
  async function commandsDuring(work: () => Promise<unknown>): Promise<string[]> {
    const monitor = spawn('redis-cli', ['-u', testRedisUrl(), 'monitor'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    monitor.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor('MONITOR to start', () => out.startsWith('OK'));
    try {
      await work();
      await p.connections.command.ping(); // let MONITOR deliver what it saw
      await waitFor('MONITOR to catch up', () => out.includes('"PING"') || out.includes('"ping"'));
    } finally {
      monitor.kill();
    }
    return out.split('\n').filter((line) => line.includes(`${p.prefix}:`));
  }

  it('a retried attempt starts from the last checkpoint; the run view shows it', async () => {
    w = await startRuntime(p.prefix);
    // Attempt 1 checkpoints after items 2 and 5, then fails after item 7.
    const payload = { items: 10, every: 3, failAfter: [7] };
    const lines = await commandsDuring(async () => {
      await p.runs.enqueue(newRun('a-retry', 'test.checkpoint', { payload }));
      // Not through the run view, which reads the checkpoint too.
      await waitFor('the run to end', async () => (await p.bull.get('q').getJobState('a-retry')) === 'completed');
    });
    const { run } = await p.runs.waitForTerminal('a-retry', 10_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(run?.result).toEqual({ from: { next: 6 }, last: { next: 9 } });
    expect(processed.get('a-retry')).toEqual([
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((item) => ({ item, attempt: 1 })),
      ...[6, 7, 8, 9].map((item) => ({ item, attempt: 2 })),
    ]);
    // Three checkpoint writes (after items 2, 5, 8) and one read, by attempt 2.
    expect(lines.filter((l) => /"eval(sha)?" .*"drover:checkpoint"/i.test(l))).toHaveLength(3);
    expect(lines.filter((l) => /"hget".*"drover:checkpoint"/i.test(l))).toHaveLength(1);
    const view = await p.runs.get('a-retry');
    expect(view?.checkpoint).toEqual({ at: expect.any(Number), attempt: 2, size: 10, state: { next: 9 } });
    expect(view?.payload).toEqual(payload);
  });

  it('a run that never checkpoints sends no command about checkpoints', async () => {
    w = await startRuntime(p.prefix);
    const lines = await commandsDuring(async () => {
      await p.runs.enqueue(newRun('a-plain', 'test.echo', { payload: { n: 1 } }));
      await p.runs.waitForTerminal('a-plain', 10_000);
    });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.includes('drover:checkpoint'))).toEqual([]);
    expect((await p.runs.get('a-plain'))?.checkpoint).toBeUndefined();
  });

  it('refuses a state that is not plain JSON or longer than 64 KiB, with its own error; nothing is stored', async () => {
    w = await startRuntime(p.prefix);
    await p.runs.enqueueMany([
      newRun('a-date', 'test.checkpoint', { payload: { items: 0, every: 1, bad: 'date' } }),
      newRun('a-big', 'test.checkpoint', { payload: { items: 0, every: 1, bad: 'big' } }),
    ]);
    expect((await p.runs.waitForTerminal('a-date', 10_000)).run?.result).toBe('checkpoint-not-json');
    expect((await p.runs.waitForTerminal('a-big', 10_000)).run?.result).toBe('checkpoint-too-large');
    expect((await p.runs.get('a-date'))?.checkpoint).toBeUndefined();
    expect((await p.runs.get('a-big'))?.checkpoint).toBeUndefined();
  });
});
