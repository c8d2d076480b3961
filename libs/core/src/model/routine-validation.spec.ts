import { validateRoutine } from './routine-validation';

describe('validating one routine (an API body, a client call)', () => {
  it('fills in the defaults of a valid routine', () => {
    const res = validateRoutine({ name: 'x', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' } }, [
      'default',
    ]);
    expect(res).toMatchObject({ ok: true, routine: { name: 'x', status: 'active', payload: {}, labels: {} } });
  });

  it('names the field at fault', () => {
    expect(
      validateRoutine({ name: 'x', jobType: 'noop', queue: 'default', trigger: { kind: 'cron', cron: 'nope' } }, [
        'default',
      ]),
    ).toMatchObject({
      ok: false,
      errors: [expect.stringMatching(/trigger\.cron/)],
    });
  });

  it('refuses a queue that is not among the known ones', () => {
    expect(
      validateRoutine({ name: 'x', jobType: 'noop', queue: 'unknown', trigger: { kind: 'manual' } }, ['default']),
    ).toEqual({
      ok: false,
      errors: ['routines[x].queue: queue "unknown" is not defined; defined queues: default'],
      issues: [{ path: 'routines[x].queue', message: 'queue "unknown" is not defined; defined queues: default' }],
    });
  });
});
