import { childFlows } from './flow-children';

let draws = 0;
const ctx = { now: 1_700_000_000_000, random: () => (++draws % 97) / 97, createdBy: 'reports' };

describe('childFlows', () => {
  it('makes an ad-hoc run per child, with its own children and failure rule', () => {
    const [a, b] = childFlows(
      [
        { jobType: 'sales.fetch', payload: { region: 'eu' }, queue: 'etl', onFailure: 'ignore' },
        { jobType: 'sales.sum', payload: {}, children: [{ jobType: 'sales.fetch', payload: {}, delayMs: 5000 }] },
      ],
      ctx,
    );
    expect(a).toMatchObject({
      run: { jobType: 'sales.fetch', queue: 'etl', createdBy: 'reports' },
      onFailure: 'ignore',
    });
    expect(b!.run.queue).toBe('default');
    expect(b!.children).toHaveLength(1);
    expect(b!.children![0]!.run).toMatchObject({ delayMs: 5000, scheduledFor: ctx.now + 5000 });
    expect(a!.run.id).not.toBe(b!.run.id);
  });

  it('refuses no children, a blank job type and a payload that is not plain JSON', () => {
    expect(() => childFlows([], ctx)).toThrow(/at least one child/);
    expect(() => childFlows([{ jobType: ' ', payload: {} }], ctx)).toThrow(/jobType/);
    expect(() => childFlows([{ jobType: 'x', payload: { at: new Date() } }], ctx)).toThrow(
      expect.objectContaining({ code: 'invalid-payload' }),
    );
  });
});
