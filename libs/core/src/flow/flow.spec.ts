import { flowShapeIssues, flowSize, MAX_FLOW_DEPTH, MAX_FLOW_RUNS, type FlowShape } from './flow';

const leaf = (queue = 'a', extra: Partial<FlowShape> = {}): FlowShape => ({ queue, ...extra });

describe('flowShapeIssues', () => {
  it('takes a parent with children on other queues, gated leaves and delayed leaves', () => {
    const flow: FlowShape = {
      queue: 'reports',
      children: [leaf('etl', { gated: true }), leaf('mail', { delayed: true }), { queue: 'etl', children: [leaf()] }],
    };
    expect(flowShapeIssues(flow)).toEqual([]);
    expect(flowSize(flow)).toBe(5);
  });

  it('refuses a delayed or gated parent, and a keyed run anywhere, naming where', () => {
    const flow: FlowShape = {
      queue: 'r',
      delayed: true,
      children: [{ queue: 'g', gated: true, children: [leaf('k', { keyed: true })] }],
    };
    expect(flowShapeIssues(flow)).toEqual([
      'the top run: a parent starts when its children finish; delay its children instead',
      'children.0: queue g requires approval; in a flow only runs without children may be gated',
      "children.0.children.0: queue k limits runs per concurrency key; a flow's runs take none",
    ]);
  });

  it('refuses more runs or levels than the limits', () => {
    const wide: FlowShape = { queue: 'a', children: Array.from({ length: MAX_FLOW_RUNS }, () => leaf()) };
    expect(flowShapeIssues(wide)).toEqual([`a flow has at most ${MAX_FLOW_RUNS} runs, not ${MAX_FLOW_RUNS + 1}`]);
    let deep: FlowShape = leaf();
    for (let i = 0; i <= MAX_FLOW_DEPTH; i++) deep = { queue: 'a', children: [deep] };
    expect(flowShapeIssues(deep)).toHaveLength(1);
    expect(flowShapeIssues(deep)[0]).toMatch(/at most 10 levels/);
  });

  it('on one queue only (Redis Cluster), names each run in another', () => {
    const flow: FlowShape = { queue: 'a', children: [leaf('a'), leaf('b')] };
    expect(flowShapeIssues(flow, { oneQueue: true })).toEqual([
      'children.1: on Redis Cluster every run of a flow is in one queue (a), not b',
    ]);
    expect(flowShapeIssues(flow)).toEqual([]);
  });
});
