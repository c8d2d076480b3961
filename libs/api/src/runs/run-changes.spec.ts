import type { RunView } from '@drover/store';
import { runChanges } from './run-changes';

const base: RunView = {
  id: 'a-1',
  routine: null,
  jobType: 'noop',
  queue: 'default',
  source: 'api',
  scheduledFor: null,
  status: 'queued',
  attempt: 0,
  maxAttempts: 3,
  payload: {},
  createdAt: Date.UTC(2026, 0, 1),
  updatedAt: Date.UTC(2026, 0, 1),
};

describe('run stream changes', () => {
  it('shows the current state first, as the API run (ISO times)', () => {
    const [first, ...rest] = runChanges(undefined, base);
    expect(rest).toEqual([]);
    expect(first).toEqual({
      event: 'status',
      data: expect.objectContaining({ id: 'a-1', status: 'queued', createdAt: '2026-01-01T00:00:00.000Z' }),
    });
  });

  it('says nothing when a re-read shows no change worth an event', () => {
    expect(runChanges(base, { ...base, updatedAt: base.updatedAt + 5 })).toEqual([]);
  });

  it('reports a new attempt after the status it came with, then progress', () => {
    const running = { ...base, status: 'running' as const, attempt: 1, progress: { pct: 10 } };
    expect(runChanges(base, running).map((e) => e.event)).toEqual(['status', 'attempt', 'progress']);
    expect(runChanges(base, running)[1]).toEqual({
      event: 'attempt',
      data: { id: 'a-1', attempt: 1, maxAttempts: 3, status: 'running' },
    });
  });

  it('reports a new attempt without a status change (an attempt lost to a lease, restarted)', () => {
    const one = { ...base, status: 'running' as const, attempt: 1 };
    expect(runChanges(one, { ...one, attempt: 2 }).map((e) => e.event)).toEqual(['attempt']);
  });

  it('reports progress only when its value changed', () => {
    const a = { ...base, status: 'running' as const, attempt: 1, progress: { pct: 10 } };
    expect(runChanges(a, { ...a, progress: { pct: 10 } })).toEqual([]);
    expect(runChanges(a, { ...a, progress: { pct: 20 } })).toEqual([
      { event: 'progress', data: { id: 'a-1', progress: { pct: 20 } } },
    ]);
  });
});
