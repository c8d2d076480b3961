import { parseBundle, type Routine } from '@drover/core';
import { testStores } from '@drover/testing';
import { enqueueAdHoc, enqueueAdHocMany } from './ad-hoc-enqueue';
import { adHocRun } from './ad-hoc-run';
import { runOfRoutine } from './routine-run';
import { newRunId } from './run-id';

const NOW = 1_767_225_600_000;

function routine(concurrencyPolicy: string): Routine {
  const res = parseBundle({
    queues: [{ name: 'q' }],
    routines: [
      { name: 'r', jobType: 'noop', queue: 'q', trigger: { kind: 'interval', everyMs: 60_000 }, concurrencyPolicy },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('the run maker on a real store', () => {
  let s: ReturnType<typeof testStores>;

  beforeEach(async () => {
    s = testStores('run-maker');
    await s.registry.put([{ name: 'q' }, { name: 'other' }]);
  });

  afterEach(async () => {
    await s.close();
  });

  const request = (jobType: string, queue: string, idempotencyKey?: string) =>
    adHocRun(
      { jobType, payload: {}, queue, delayMs: 0, scheduledFor: null, priority: 0, createdBy: 't', idempotencyKey },
      { now: NOW, random: Math.random, defaultQueue: 'q' },
    );

  it('makes one run per idempotency key and reports a key reused for another operation, writing nothing', async () => {
    const first = request('send', 'q', 'k1');
    expect(await enqueueAdHoc(s.runs, { run: first, key: 'k1' })).toEqual({ ids: first.id });
    expect(await enqueueAdHoc(s.runs, { run: request('send', 'q', 'k1'), key: 'k1' })).toEqual({ ids: first.id });
    const other = await enqueueAdHoc(s.runs, { run: request('send', 'other', 'k1'), key: 'k1' });
    expect(other).toEqual({
      conflict: {
        idempotencyKey: 'k1',
        runId: first.id,
        existing: { jobType: 'send', queue: 'q' },
        requested: { jobType: 'send', queue: 'other' },
      },
    });
    const batch = [{ run: request('send', 'q') }, { run: request('mail', 'q', 'k1'), key: 'k1' }];
    expect(await enqueueAdHocMany(s.runs, batch)).toMatchObject({ conflict: { runId: first.id } });
    expect(await s.runs.get(batch[0]!.run.id)).toBeNull();
  });

  it("lists a routine's runs as open by its policy, whoever made them", async () => {
    for (const [policy, listed] of [
      ['forbid', true],
      ['allow', false],
    ] as const) {
      const def = routine(policy);
      const made = [
        runOfRoutine(def, {
          id: newRunId({ kind: 'manual', now: NOW, random: Math.random }),
          source: 'manual',
          scheduledFor: NOW,
          createdBy: 't',
        }),
        runOfRoutine(def, {
          id: newRunId({ kind: 'backfill', routine: 'r', slot: NOW - 60_000 }),
          source: 'catch-up',
          scheduledFor: NOW - 60_000,
          createdBy: 't',
        }),
      ];
      await s.runs.enqueueMany(made);
      const open = (await s.runs.openRunsOfRoutine('r')).map((r) => r.id);
      expect(open.sort()).toEqual(listed ? made.map((r) => r.id).sort() : []);
      for (const r of made) await s.runs.cancel(r.id);
    }
  });
});
