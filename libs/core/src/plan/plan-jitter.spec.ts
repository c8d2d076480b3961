import { parseBundle } from '../model/bundle.schema';
import { previewFires, withPlannedStarts } from '../schedule/fire-preview';
import { plannedStart } from '../schedule/jitter';
import { plan } from './plan';

const NOW = Date.UTC(2026, 5, 15, 14, 0, 0);
const MIN = 60_000;

function state(jitterMs: number) {
  const r = parseBundle({
    queues: [{ name: 'default' }],
    routines: [
      { name: 'spread', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: MIN }, jitterMs },
    ],
  });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  const [routine] = r.bundle.routines;
  return {
    routine: routine!,
    plan: {
      queues: [{ queue: r.bundle.queues[0]!, running: 0, waiting: [] }],
      routines: [{ routine: routine!, lastSlot: NOW - MIN }],
    },
  };
}

describe('plan and preview show a jittered run planned start next to its slot', () => {
  it('plan: the due slot fires now, its run waits (not-yet-due) until slot + offset; upcoming carries it too', () => {
    const { routine, plan: s } = state(50_000);
    const start = plannedStart(routine, NOW);
    expect(start).toBeGreaterThan(NOW);
    const p = plan(NOW, s);
    expect(p.fires).toEqual([expect.objectContaining({ slot: NOW, start })]);
    expect(p.starts).toEqual([]);
    expect(p.waiting).toEqual([
      { subject: { kind: 'run', id: p.fires[0]!.runId, queue: 'default' }, reason: 'not-yet-due', until: start },
    ]);
    expect(p.upcoming).toEqual([{ routine: 'spread', at: NOW + MIN, start: plannedStart(routine, NOW + MIN) }]);
    // Once the planned start has come, it starts.
    expect(plan(start, s).starts).toEqual([expect.objectContaining({ runId: p.fires[0]!.runId })]);
  });

  it('without jitter nothing changes: no start field, the run starts at its slot', () => {
    const p = plan(NOW, state(0).plan);
    expect(p.fires[0]).not.toHaveProperty('start');
    expect(p.starts).toHaveLength(1);
    expect(p.upcoming[0]).not.toHaveProperty('start');
  });

  it('preview: each fire keeps its slot as `at` and gains its planned start', () => {
    const trigger = { kind: 'cron', cron: '0 * * * *', tz: 'Europe/Berlin' } as const;
    const fires = withPlannedStarts(previewFires(trigger, NOW, 3), { name: 'spread', jitterMs: 600_000 });
    for (const f of fires) expect(f.start).toBe(plannedStart({ name: 'spread', jitterMs: 600_000 }, f.at));
    expect(withPlannedStarts(previewFires(trigger, NOW, 1), { name: 'spread', jitterMs: 0 })[0]).not.toHaveProperty(
      'start',
    );
  });
});
