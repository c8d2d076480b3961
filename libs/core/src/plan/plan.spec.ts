import fc from 'fast-check';
import { parseBundle } from '../model/bundle.schema';
import type { Queue } from '../model/queue.schema';
import type { Routine, RoutineInput } from '../model/routine.schema';
import { plan } from './plan';
import { queueCapacity } from './plan-queues';
import type { PlanState, QueuedRun, QueueState } from './plan.types';

const NOW = 1_749_996_000_000; // 2025-06-15T14:00:00Z
const MIN = 60_000;

function bundle(
  queues: { name: string; globalConcurrency?: number; concurrency?: number }[],
  routines: Partial<RoutineInput>[],
) {
  const r = parseBundle({
    queues,
    routines: routines.map((x) => ({
      jobType: 'noop',
      queue: 'default',
      trigger: { kind: 'interval', everyMs: MIN },
      ...x,
    })),
  });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.bundle;
}
const qs = (queue: Queue, over: Partial<QueueState> = {}): QueueState => ({ queue, running: 0, waiting: [], ...over });
const queued = (id: string, over: Partial<QueuedRun> = {}): QueuedRun => ({
  id,
  routine: null,
  source: 'api',
  scheduledFor: NOW - MIN,
  ...over,
});

describe('plan', () => {
  const b = bundle(
    [{ name: 'default', globalConcurrency: 2 }, { name: 'other' }],
    [
      { name: 'every-minute' },
      { name: 'paused-one', status: 'paused' },
      { name: 'forbidding', concurrencyPolicy: 'forbid' },
      { name: 'replacing', concurrencyPolicy: 'replace', priority: 'high' },
      { name: 'failing' },
      { name: 'disabled' },
      { name: 'elsewhere', queue: 'other', trigger: { kind: 'cron', cron: '0 * * * *' } },
      { name: 'manual-only', trigger: { kind: 'manual' } },
    ],
  );
  const [dflt, other] = b.queues as [Queue, Queue];
  const routine = (name: string) => b.routines.find((r) => r.name === name) as Routine;
  const state: PlanState = {
    queues: [
      qs(dflt, {
        running: 0,
        waiting: [
          queued('a-manual', { source: 'manual' }),
          queued('a-retry', { nextAttemptAt: NOW + 5000 }),
          queued('r-replacing-1', { routine: 'replacing' }),
        ],
        parked: ['p-2', 'p-1'],
      }),
      qs(other, { paused: true, waiting: [queued('a-other')] }),
    ],
    routines: [
      { routine: routine('every-minute'), lastSlot: NOW - MIN },
      { routine: routine('paused-one'), lastSlot: NOW - MIN },
      { routine: routine('forbidding'), lastSlot: NOW - MIN, runs: [{ id: 'r-forbidding-1', status: 'running' }] },
      { routine: routine('replacing'), lastSlot: NOW - MIN, runs: [{ id: 'r-replacing-1', status: 'queued' }] },
      {
        routine: routine('failing'),
        lastSlot: NOW - MIN,
        launcher: { consecutiveFailures: 1, nextAttemptAt: NOW + 1000 },
      },
      {
        routine: routine('disabled'),
        lastSlot: NOW - MIN,
        launcher: { consecutiveFailures: 5, disabledReason: 'broken' },
      },
      { routine: routine('elsewhere'), lastSlot: NOW - 60 * MIN },
      { routine: routine('manual-only'), lastSlot: 0 },
    ],
  };

  it('says what fires, what starts, and why everything else waits', () => {
    const p = plan(NOW, state);
    expect(p.fires).toEqual([
      { routine: 'elsewhere', queue: 'other', slot: NOW, source: 'schedule', runId: `r-elsewhere-${NOW}`, cancel: [] },
      {
        routine: 'every-minute',
        queue: 'default',
        slot: NOW,
        source: 'schedule',
        runId: `r-every-minute-${NOW}`,
        cancel: [],
      },
      {
        routine: 'replacing',
        queue: 'default',
        slot: NOW,
        source: 'schedule',
        runId: `r-replacing-${NOW}`,
        cancel: ['r-replacing-1'],
      },
    ]);
    expect(p.skips).toEqual([{ routine: 'forbidding', slot: NOW, reason: 'overlap-forbid' }]);
    // globalConcurrency 2: the manual run first, then the high-priority fire.
    expect(p.starts).toEqual([
      { runId: 'a-manual', queue: 'default', routine: null, fromFire: false },
      { runId: `r-replacing-${NOW}`, queue: 'default', routine: 'replacing', fromFire: true },
    ]);
    expect(p.waiting).toEqual([
      { subject: { kind: 'routine', name: 'disabled' }, reason: 'disabled', detail: 'broken' },
      { subject: { kind: 'routine', name: 'failing' }, reason: 'backing-off', until: NOW + 1000 },
      { subject: { kind: 'routine', name: 'forbidding' }, reason: 'overlap', detail: 'active: r-forbidding-1' },
      { subject: { kind: 'routine', name: 'paused-one' }, reason: 'paused', detail: 'paused' },
      { subject: { kind: 'run', id: 'a-retry', queue: 'default' }, reason: 'backing-off', until: NOW + 5000 },
      { subject: { kind: 'run', id: 'p-1', queue: 'default' }, reason: 'parked' },
      { subject: { kind: 'run', id: 'p-2', queue: 'default' }, reason: 'parked' },
      { subject: { kind: 'run', id: `r-every-minute-${NOW}`, queue: 'default' }, reason: 'ceiling-reached' },
      { subject: { kind: 'run', id: 'a-other', queue: 'other' }, reason: 'queue-paused' },
      { subject: { kind: 'run', id: `r-elsewhere-${NOW}`, queue: 'other' }, reason: 'queue-paused' },
    ]);
    expect(p.upcoming).toEqual([
      { routine: 'disabled', at: NOW + MIN },
      { routine: 'elsewhere', at: NOW + 60 * MIN },
      { routine: 'every-minute', at: NOW + MIN },
      { routine: 'failing', at: NOW + MIN },
      { routine: 'forbidding', at: NOW + MIN },
      { routine: 'replacing', at: NOW + MIN },
    ]);
  });

  it('reports routines whose queue is unknown and delayed runs not yet due', () => {
    const p = plan(NOW, {
      queues: [qs(dflt, { waiting: [queued('later', { scheduledFor: NOW + MIN })] })],
      routines: [{ routine: { ...routine('every-minute'), queue: 'ghost' }, lastSlot: NOW - MIN }],
    });
    expect(p.waiting).toEqual([
      { subject: { kind: 'routine', name: 'every-minute' }, reason: 'queue-unknown', detail: 'ghost' },
      { subject: { kind: 'run', id: 'later', queue: 'default' }, reason: 'not-yet-due', until: NOW + MIN },
    ]);
  });

  it('lets only the first of several catch-up fires through under forbid', () => {
    const r: Routine = { ...routine('forbidding'), catchUpPolicy: 'all' };
    const p = plan(NOW, { queues: [qs(dflt)], routines: [{ routine: r, lastSlot: NOW - 3 * MIN }] });
    expect(p.fires.map((f) => [NOW - f.slot, f.source])).toEqual([[2 * MIN, 'catch-up']]);
    expect(p.skips.map((s) => [NOW - s.slot, s.reason])).toEqual([
      [MIN, 'overlap-forbid'],
      [0, 'overlap-forbid'],
    ]);
    expect(p.waiting).toEqual([
      {
        subject: { kind: 'routine', name: 'forbidding' },
        reason: 'overlap',
        detail: `active: r-forbidding-${NOW - 2 * MIN}`,
      },
    ]);
  });

  it('computes queue capacity from globalConcurrency and concurrency × workers', () => {
    expect(queueCapacity(qs(dflt, { running: 1 }))).toBe(1);
    expect(queueCapacity(qs(dflt, { running: 5 }))).toBe(0);
    expect(queueCapacity(qs(other, { workers: 3, running: 4 }))).toBe(26);
    expect(queueCapacity(qs(other))).toBe(Infinity);
  });

  describe('properties', () => {
    const stateArb = fc
      .record({
        global: fc.option(fc.integer({ min: 1, max: 8 })),
        concurrency: fc.integer({ min: 1, max: 4 }),
        workers: fc.option(fc.integer({ min: 0, max: 3 })),
        running: fc.integer({ min: 0, max: 10 }),
        paused: fc.boolean(),
        waiting: fc.uniqueArray(
          fc.record({
            id: fc.string({ minLength: 1, maxLength: 6 }),
            source: fc.constantFrom('schedule', 'catch-up', 'manual', 'api', 'replay' as const),
            age: fc.integer({ min: -MIN, max: 10 * MIN }),
            priority: fc.option(fc.integer({ min: -20, max: 20 })),
          }),
          { maxLength: 25, selector: (w) => w.id },
        ),
        routines: fc.array(
          fc.record({
            everyMs: fc.integer({ min: 1000, max: 10 * MIN }),
            back: fc.integer({ min: 0, max: 30 * MIN }),
            catchUpPolicy: fc.constantFrom('skip', 'last', 'all' as const),
            concurrencyPolicy: fc.constantFrom('allow', 'forbid', 'replace', 'buffer-one' as const),
            priority: fc.constantFrom('low', 'medium', 'high' as const),
            depth: fc.option(fc.integer({ min: 0, max: 5 })),
          }),
          { maxLength: 6 },
        ),
      })
      .map((a): PlanState => {
        const q = bundle(
          [{ name: 'default', concurrency: a.concurrency, ...(a.global !== null && { globalConcurrency: a.global }) }],
          [],
        ).queues[0] as Queue;
        const routines = a.routines.map((r, i) => {
          const def = bundle(
            [{ name: 'default' }],
            [
              {
                name: `r${i}`,
                trigger: { kind: 'interval', everyMs: r.everyMs },
                catchUpPolicy: r.catchUpPolicy,
                concurrencyPolicy: r.concurrencyPolicy,
                priority: r.priority,
                maxCatchUp: 3,
                ...(r.depth !== null && { depth: r.depth }),
              },
            ],
          ).routines[0] as Routine;
          return { routine: def, lastSlot: NOW - r.back };
        });
        const waiting = a.waiting.map((w) =>
          queued(w.id, {
            source: w.source,
            scheduledFor: NOW - w.age,
            ...(w.priority !== null && { priority: w.priority }),
          }),
        );
        return {
          queues: [
            qs(q, { running: a.running, paused: a.paused, waiting, ...(a.workers !== null && { workers: a.workers }) }),
          ],
          routines,
        };
      });

    it('never exceeds a ceiling', () => {
      fc.assert(
        fc.property(stateArb, (s) => {
          const p = plan(NOW, s);
          const q = s.queues[0] as QueueState;
          const starts = p.starts.length;
          if (q.queue.globalConcurrency !== undefined)
            expect(q.running + starts).toBeLessThanOrEqual(Math.max(q.running, q.queue.globalConcurrency));
          if (q.workers !== undefined)
            expect(q.running + starts).toBeLessThanOrEqual(Math.max(q.running, q.queue.concurrency * q.workers));
          if (q.paused) expect(starts).toBe(0);
          expect(new Set(p.starts.map((x) => x.runId)).size).toBe(starts);
        }),
      );
    });

    it('is deterministic and does not mutate its input', () => {
      fc.assert(
        fc.property(stateArb, (s) => {
          const copy = structuredClone(s);
          const shuffled: PlanState = { ...s, routines: [...s.routines].reverse() };
          expect(plan(NOW, s)).toEqual(plan(NOW, structuredClone(s)));
          expect(plan(NOW, shuffled)).toEqual(plan(NOW, s));
          expect(s).toEqual(copy);
        }),
        { numRuns: 50 },
      );
    });
  });
});
