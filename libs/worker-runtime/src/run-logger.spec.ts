import pino from 'pino';
import { runLogger } from './run-logger';

describe('ctx.log', () => {
  it("writes a line to the run's log when called, and to the worker's log through its pino methods", () => {
    const out: Record<string, unknown>[] = [];
    const root = pino({ level: 'debug' }, { write: (s: string) => out.push(JSON.parse(s)) });
    const written: unknown[][] = [];
    const log = runLogger(root.child({ runId: 'r-1' }), (...args) => written.push(args));

    log('fetched', { rows: 2 });
    log('plain');
    expect(written).toEqual([
      ['fetched', { rows: 2 }],
      ['plain', undefined],
    ]);

    log.info({ month: 3 }, 'generating');
    log.debug('details');
    log.child({ step: 'a' }).warn('careful');
    expect(out.map(({ runId, msg, month, step }) => ({ runId, msg, month, step }))).toEqual([
      { runId: 'r-1', msg: 'generating', month: 3, step: undefined },
      { runId: 'r-1', msg: 'details', month: undefined, step: undefined },
      { runId: 'r-1', msg: 'careful', month: undefined, step: 'a' },
    ]);
    expect(log.isLevelEnabled('trace')).toBe(false);
    expect(written).toHaveLength(2);
  });
});
