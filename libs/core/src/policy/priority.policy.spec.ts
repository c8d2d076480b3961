import {
  compareWork,
  isManualSource,
  priorityValue,
  toBullmqPriority,
  weightedStaleness,
  type WorkItem,
} from './priority.policy';

const NOW = 1_749_996_000_000;
const item = (id: string, over: Partial<WorkItem> = {}): WorkItem => ({
  id,
  manual: false,
  priority: 0,
  readyAt: NOW,
  ...over,
});

describe('priority', () => {
  it.each([
    ['low', -10],
    ['medium', 0],
    ['high', 10],
    [undefined, 0],
    [42, 42],
    [-5, -5],
  ] as const)('priorityValue(%j) = %d', (p, v) => {
    expect(priorityValue(p)).toBe(v);
  });

  it('maps priority values onto BullMQ (1 = first)', () => {
    expect(toBullmqPriority(1000)).toBe(1);
    expect(toBullmqPriority(0)).toBe(1001);
    expect(toBullmqPriority(-1000)).toBe(2001);
    expect(toBullmqPriority(5000)).toBe(1);
    expect(toBullmqPriority(-5000)).toBe(2001);
  });

  it('treats manual triggers and replays as manual', () => {
    expect(['schedule', 'catch-up', 'manual', 'api', 'replay'].filter((s) => isManualSource(s as never))).toEqual([
      'manual',
      'replay',
    ]);
  });

  it('weights staleness by depth and emphasis', () => {
    expect(weightedStaleness(item('a', { readyAt: NOW - 1000 }), NOW)).toBe(1000);
    expect(weightedStaleness(item('a', { readyAt: NOW + 1000 }), NOW)).toBe(0);
    expect(weightedStaleness(item('a', { readyAt: NOW - 1000, depth: 3 }), NOW)).toBe(4000);
    expect(weightedStaleness(item('a', { readyAt: NOW - 1000, depth: 3, emphasis: 2 }), NOW)).toBe(16_000);
    expect(weightedStaleness(item('a', { readyAt: NOW - 1000, depth: 3, emphasis: 2 }), NOW, 0.5)).toBe(4000);
    expect(weightedStaleness(item('a', { readyAt: NOW - 1000, emphasis: 5 }), NOW)).toBe(1000);
    expect(weightedStaleness(item('a', { readyAt: NOW, depth: 1e6, emphasis: 1e6 }), NOW)).toBe(0);
  });

  it('orders work: manual, priority, weighted staleness, readyAt, id', () => {
    const items = [
      item('z-old', { readyAt: NOW - 5000 }),
      item('high', { priority: 10, readyAt: NOW }),
      item('manual-low', { manual: true, priority: -10 }),
      item('deep', { readyAt: NOW - 2000, depth: 2, emphasis: 1 }), // 6000
      item('b-tie', { readyAt: NOW - 5000 }),
      item('future', { readyAt: NOW + 10 }),
      item('future-earlier', { readyAt: NOW + 5 }),
    ];
    expect(items.sort(compareWork(NOW)).map((i) => i.id)).toEqual([
      'manual-low',
      'high',
      'deep',
      'b-tie',
      'z-old',
      'future-earlier',
      'future',
    ]);
    expect(compareWork(NOW)(item('a'), item('a'))).toBe(0);
  });
});
