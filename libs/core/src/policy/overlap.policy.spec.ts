import { decideOverlap } from './overlap.policy';

const runs = [
  { id: 'r-b-2', status: 'running' as const },
  { id: 'r-b-1', status: 'queued' as const },
  { id: 'r-b-0', status: 'succeeded' as const },
  { id: 'r-b-3', status: 'parked' as const },
];

describe('decideOverlap', () => {
  it.each([
    ['allow', runs, { action: 'allow' }],
    ['forbid', runs, { action: 'skip', reason: 'overlap-forbid', blockingRunIds: ['r-b-1', 'r-b-2'] }],
    ['replace', runs, { action: 'replace', cancelRunIds: ['r-b-1', 'r-b-2'] }],
    ['forbid', [], { action: 'allow' }],
    ['replace', [{ id: 'x', status: 'failed' as const }], { action: 'allow' }],
    [
      'forbid',
      [{ id: 'x', status: 'scheduled' as const }],
      { action: 'skip', reason: 'overlap-forbid', blockingRunIds: ['x'] },
    ],
  ] as const)('%s with %j → %j', (policy, given, expected) => {
    expect(decideOverlap(policy, given)).toEqual(expected);
  });
});
