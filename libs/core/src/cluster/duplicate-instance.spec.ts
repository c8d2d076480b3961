import { DuplicateInstanceWatch } from './duplicate-instance';

describe('DuplicateInstanceWatch', () => {
  it('takes what the first write finds for the leftover of an earlier start, not a duplicate', () => {
    const watch = new DuplicateInstanceWatch('n1');
    expect(watch.observe('n0')).toBeUndefined();
    expect(watch.observe('n1')).toBeUndefined();
  });

  it('reports a foreign nonce found by a later write: another live process wrote after this one', () => {
    const watch = new DuplicateInstanceWatch('n1');
    expect(watch.observe(null)).toBeUndefined();
    expect(watch.observe('n1')).toBeUndefined();
    expect(watch.observe('n2')).toBe('n2');
  });

  it('reports each other process once, and a third one too', () => {
    const watch = new DuplicateInstanceWatch('n1');
    watch.observe(undefined);
    expect(watch.observe('n2')).toBe('n2');
    expect(watch.observe('n2')).toBeUndefined();
    expect(watch.observe('n1')).toBeUndefined();
    expect(watch.observe('n3')).toBe('n3');
  });
});
