import { SKIP_REASONS } from '../policy/skip-reason';
import { ACTIVE_RUN_STATUSES, FINAL_RUN_STATUSES, RUN_STATUSES } from './run-status';
import { runSchema } from './run.schema';

describe('run model', () => {
  it('validates a stored run', () => {
    const run = {
      id: 'r-nightly-0',
      routine: 'nightly',
      jobType: 'noop',
      queue: 'default',
      source: 'schedule',
      scheduledFor: 0,
      status: 'queued',
      attempt: 0,
      maxAttempts: 3,
      createdAt: 0,
      updatedAt: 0,
    };
    expect(runSchema.parse(run)).toEqual(run);
    expect(runSchema.safeParse({ ...run, status: 'done' }).success).toBe(false);
    expect(runSchema.safeParse({ ...run, routine: null, source: 'api' }).success).toBe(true);
  });

  it('splits statuses into active, final and parked', () => {
    const rest = RUN_STATUSES.filter((s) => !ACTIVE_RUN_STATUSES.includes(s) && !FINAL_RUN_STATUSES.includes(s));
    expect(rest).toEqual(['parked']);
    expect(SKIP_REASONS).toContain('deadline-exceeded');
  });
});
