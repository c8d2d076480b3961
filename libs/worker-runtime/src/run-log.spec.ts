import pino from 'pino';
import { DEFAULT_RETENTION } from '@drover/core';
import { ManualClock } from '@drover/testing';
import { runLogSink, type RunLogSink } from './run-log';

describe('runLogSink', () => {
  const queue = {} as RunLogSink['queue'];
  const deps = { bull: { get: () => queue }, clock: new ManualClock(0), log: pino({ level: 'silent' }) };

  it("caps a run's lines at its queue's retention.logLines, or the default for a policy stored without it", () => {
    expect(runLogSink({ name: 'q', retention: { logLines: 7 } }, deps)).toMatchObject({ queue, keepLines: 7 });
    expect(runLogSink({ name: 'q', retention: {} }, deps).keepLines).toBe(DEFAULT_RETENTION.logLines);
  });
});
