import pino from 'pino';
import { parseRunLogLine, RUN_LOG_TRUNCATED } from '@drover/core';
import { ManualClock, uniquePrefix, waitFor } from '@drover/testing';
import { RunLog } from './run-log';
import { newRun, producer, startRuntime, type Harness, type RuntimeHandle } from './testing/runtime-harness';

const T0 = 1_764_145_000_000;

describe("a run's log (ctx.log) against a real redis-server and BullMQ worker", () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });

  const lines = async (id: string) => (await p.bull.get('q').getJobLogs(id)).logs.map(parseRunLogLine);

  it('keeps the newest retention.logLines lines, numbered across attempts, and drops them with the run', async () => {
    const backoff = { type: 'fixed', delayMs: 10 } as const;
    p = await producer(uniquePrefix('log'), [{ name: 'q', maxAttempts: 2, backoff, retention: { logLines: 5 } }]);
    w = await startRuntime(p.prefix);
    await p.runs.enqueue(newRun('l-1', 'test.log', { payload: { lines: 4, failFirst: 1, fields: { k: 'v' } } }));
    const { run } = await p.runs.waitForTerminal('l-1', 10_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2 });
    // 8 lines written over two attempts; the newest 5 kept, numbered 4..8, all stored before the run settled.
    const kept = await lines('l-1');
    expect(kept.map((l) => l.seq)).toEqual([4, 5, 6, 7, 8]);
    expect(kept.map((l) => l.message)).toEqual([
      'attempt 1 line 4',
      'attempt 2 line 1',
      'attempt 2 line 2',
      'attempt 2 line 3',
      'attempt 2 line 4',
    ]);
    expect(kept[0]).toMatchObject({ fields: { k: 'v' }, at: expect.any(Number) });

    // BullMQ removes the job's logs key with the job (retention, purge, clean).
    const key = `${p.bull.keys.bullJob('q', 'l-1')}:logs`;
    expect(await p.connections.command.exists(key)).toBe(1);
    await p.bull.get('q').remove('l-1');
    expect(await p.connections.command.exists(key)).toBe(0);
  });

  it('cuts a long line, returns at once, and reports a line it could not write without throwing', async () => {
    p = await producer(uniquePrefix('log'), [{ name: 'q' }]);
    await p.runs.enqueue(newRun('l-2', 'test.echo'));
    const warnings: unknown[] = [];
    const log = pino({ level: 'warn' }, { write: (s: string) => warnings.push(JSON.parse(s)) });
    const sink = { queue: p.bull.get('q'), clock: new ManualClock(T0), keepLines: 10, log };
    const runLog = new RunLog(sink, 'l-2', false);
    expect(runLog.write('x'.repeat(10_000))).toBeUndefined();
    await waitFor('the line', async () => (await lines('l-2')).length === 1);
    const [line] = await lines('l-2');
    expect(line).toMatchObject({ seq: 1, at: T0 });
    expect(line!.message.endsWith(RUN_LOG_TRUNCATED)).toBe(true);

    // A later attempt continues the numbering from the last line kept.
    const next = new RunLog(sink, 'l-2', true);
    next.write('second attempt');
    await waitFor('the second line', async () => (await lines('l-2')).length === 2);
    expect((await lines('l-2'))[1]).toMatchObject({ seq: 2, message: 'second attempt' });

    // A run that is gone: BullMQ refuses the line; the worker's log says so once.
    const gone = new RunLog(sink, 'no-such-run', false);
    gone.write('a');
    gone.write('b');
    await waitFor('the warning', () => warnings.length > 0);
    await new Promise((r) => setTimeout(r, 50));
    expect(warnings).toEqual([expect.objectContaining({ runId: 'no-such-run', msg: 'run log line not written' })]);
  });
});
