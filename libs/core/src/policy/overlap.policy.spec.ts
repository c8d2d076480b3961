import { bufferedToStart, decideOverlap, type OverlapRun } from './overlap.policy';

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

describe('buffer-one', () => {
  const running = { id: 'r-b-1', status: 'running' as const };
  const waiting = { id: 'r-b-2', status: 'scheduled' as const, bufferedBehind: 'r-b-1' };
  const started = { id: 'r-b-2', status: 'queued' as const, bufferedBehind: 'r-b-1' };
  const plainScheduled = { id: 'r-b-3', status: 'scheduled' as const };

  it.each([
    ['nothing open', [], { action: 'allow' }],
    [
      'only ended runs',
      [
        { id: 'x', status: 'succeeded' as const },
        { id: 'y', status: 'parked' as const },
      ],
      { action: 'allow' },
    ],
    ['one running', [running], { action: 'buffer', behindRunIds: ['r-b-1'] }],
    ['one queued', [{ id: 'q', status: 'queued' as const }], { action: 'buffer', behindRunIds: ['q'] }],
    ['a scheduled run that is not buffered', [plainScheduled], { action: 'buffer', behindRunIds: ['r-b-3'] }],
    [
      'running and one waiting',
      [running, waiting],
      { action: 'skip', reason: 'overlap-buffer-full', blockingRunIds: ['r-b-2'] },
    ],
    ['a waiting one alone', [waiting], { action: 'skip', reason: 'overlap-buffer-full', blockingRunIds: ['r-b-2'] }],
    ['a buffered run that started', [started], { action: 'buffer', behindRunIds: ['r-b-2'] }],
    [
      'two running (policy changed)',
      [running, { id: 'r-b-0', status: 'running' as const }],
      { action: 'buffer', behindRunIds: ['r-b-0', 'r-b-1'] },
    ],
  ] as const)('%s → %j', (_, given, expected) => {
    expect(decideOverlap('buffer-one', given)).toEqual(expected);
  });

  it('a waiting buffered run counts as active for forbid and replace (the policy changed since)', () => {
    expect(decideOverlap('forbid', [waiting])).toEqual({
      action: 'skip',
      reason: 'overlap-forbid',
      blockingRunIds: ['r-b-2'],
    });
    expect(decideOverlap('replace', [waiting])).toEqual({ action: 'replace', cancelRunIds: ['r-b-2'] });
    expect(decideOverlap('allow', [running, waiting])).toEqual({ action: 'allow' });
  });
});

describe('bufferedToStart', () => {
  const waiting = (id: string) => ({ id, status: 'scheduled' as const, bufferedBehind: 'r-b-1' });
  it.each([
    ['nothing', [], undefined],
    ['a waiting run and nothing active', [waiting('r-b-2')], 'r-b-2'],
    ['a waiting run behind a running one', [{ id: 'r-b-1', status: 'running' as const }, waiting('r-b-2')], undefined],
    ['a waiting run behind a queued one', [{ id: 'm', status: 'queued' as const }, waiting('r-b-2')], undefined],
    ['a waiting run behind a retry', [{ id: 'r-b-1', status: 'queued' as const }, waiting('r-b-2')], undefined],
    [
      'a waiting run and ended ones',
      [{ id: 'r-b-1', status: 'canceled' as const }, { id: 'r-b-0', status: 'parked' as const }, waiting('r-b-2')],
      'r-b-2',
    ],
    ['no buffered run', [{ id: 'r-b-1', status: 'scheduled' as const }], undefined],
    ['a buffered run that started already', [{ ...waiting('r-b-2'), status: 'running' as const }], undefined],
    ['two waiting: the oldest first', [waiting('r-b-3'), waiting('r-b-2')], 'r-b-2'],
  ] as const)('%s → %s', (_, given, expected) => {
    expect(bufferedToStart<OverlapRun>(given)?.id).toEqual(expected);
  });
});
