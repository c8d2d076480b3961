import { flowRunsOf } from './flow-file';

describe('flowRunsOf', () => {
  it('lists a YAML tree depth first, each run naming its parent by index', () => {
    const runs = flowRunsOf(
      {
        jobType: 'report.build',
        queue: 'reports',
        children: [
          { jobType: 'sales.sum', children: [{ jobType: 'sales.fetch', payload: { r: 'eu' }, delay: '10m' }] },
          { jobType: 'sales.fetch', onFailure: 'ignore', maxAttempts: 1 },
        ],
      },
      'flow.yaml',
    );
    expect(runs).toEqual([
      { jobType: 'report.build', payload: {}, queue: 'reports' },
      { jobType: 'sales.sum', payload: {}, parent: 0 },
      { jobType: 'sales.fetch', payload: { r: 'eu' }, delayMs: 600_000, parent: 1 },
      { jobType: 'sales.fetch', payload: {}, maxAttempts: 1, parent: 0, onFailure: 'ignore' },
    ]);
  });

  it('refuses what is not a flow, naming where', () => {
    expect(() => flowRunsOf([1], 'f.yaml')).toThrow('f.yaml: the top run must be a run');
    expect(() => flowRunsOf({ jobType: 'a', children: [{}] }, 'f.yaml')).toThrow(
      'f.yaml: the top run.children[0].jobType is required',
    );
    expect(() => flowRunsOf({ jobType: 'a', job: 'b' }, 'f.yaml')).toThrow('unknown field "job"');
    expect(() => flowRunsOf({ jobType: 'a', onFailure: 'ignore' }, 'f.yaml')).toThrow('the top run has no parent');
    expect(() => flowRunsOf({ jobType: 'a', children: [{ jobType: 'b', onFailure: 'maybe' }] }, 'f.yaml')).toThrow(
      'onFailure must be one of fail, ignore',
    );
    expect(() => flowRunsOf({ jobType: 'a', children: { jobType: 'b' } }, 'f.yaml')).toThrow('must be a list of runs');
    expect(() => flowRunsOf({ jobType: 'a', delay: 'soon' }, 'f.yaml')).toThrow('is not a duration');
  });
});
