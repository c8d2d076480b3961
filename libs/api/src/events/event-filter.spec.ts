import type { ApiEvent } from '@drover/store';
import { eventFilter, kindsQuerySchema, matchesFilter } from './event-filter';

const run = (queue: string): ApiEvent => ({
  kind: 'run',
  action: 'status',
  id: 'r1',
  at: '2026-11-22T19:40:00.000Z',
  data: { queue, status: 'queued' },
});
const routine: ApiEvent = { kind: 'routine', action: 'changed', id: 'nightly', at: '2026-11-22T19:40:00.000Z' };
const paused = (queue: string): ApiEvent => ({
  kind: 'queue',
  action: 'paused',
  id: queue,
  at: '2026-11-22T19:40:00.000Z',
});
const policies: ApiEvent = { kind: 'queue', action: 'changed', id: '*', at: '2026-11-22T19:40:00.000Z' };

describe('event filter', () => {
  it('passes every kind by default', () => {
    const f = eventFilter(undefined, undefined);
    expect([run('a'), routine, paused('a'), policies].every((e) => matchesFilter(e, f))).toBe(true);
  });

  it('keeps only the kinds asked for', () => {
    const f = eventFilter(['run'], undefined);
    expect(matchesFilter(run('a'), f)).toBe(true);
    expect(matchesFilter(routine, f)).toBe(false);
    expect(matchesFilter(paused('a'), f)).toBe(false);
  });

  it('with a queue, drops events about other queues and keeps those that name none', () => {
    const f = eventFilter(undefined, 'mail');
    expect(matchesFilter(run('mail'), f)).toBe(true);
    expect(matchesFilter(run('default'), f)).toBe(false);
    expect(matchesFilter(paused('mail'), f)).toBe(true);
    expect(matchesFilter(paused('default'), f)).toBe(false);
    expect(matchesFilter(routine, f)).toBe(true);
    expect(matchesFilter(policies, f)).toBe(true);
  });

  it('parses ?kinds= as a comma list and names unknown kinds', () => {
    expect(kindsQuerySchema.parse('run, routine')).toEqual(['run', 'routine']);
    const bad = kindsQuerySchema.safeParse('run,jobs');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe(
      'unknown kind "jobs"; use a comma-separated list of run, routine, queue, operation',
    );
    expect(kindsQuerySchema.safeParse(',').error?.issues[0]?.message).toMatch(/^is empty/);
  });
});
