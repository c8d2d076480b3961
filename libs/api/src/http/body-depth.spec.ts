import { parse } from 'yaml';
import { MAX_BODY_DEPTH, nestedDeeperThan, yamlNestedDeeperThan } from './body-depth';

const nestedArrays = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels)) as unknown;
const nestedObjects = (levels: number) => JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels)) as unknown;

describe('body nesting depth', () => {
  it('counts levels of arrays and objects: the limit is allowed, one more is not', () => {
    expect(nestedDeeperThan(nestedArrays(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nestedArrays(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    expect(nestedDeeperThan(nestedObjects(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nestedObjects(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    expect(nestedDeeperThan({ a: [1, { b: 'x' }], c: null }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: [1, { b: 'x' }], c: null }, 2)).toBe(true);
    for (const scalar of [null, 1, 'x', true]) expect(nestedDeeperThan(scalar, 0)).toBe(false);
  });

  it('walks 500,000 levels without recursion', () => {
    expect(nestedDeeperThan(nestedArrays(500_000), MAX_BODY_DEPTH)).toBe(true);
  });

  it('measures YAML before it is composed: flow, block and compact nesting', () => {
    const flow = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(yamlNestedDeeperThan(flow(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(yamlNestedDeeperThan(flow(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    expect(yamlNestedDeeperThan(flow(500_000), MAX_BODY_DEPTH)).toBe(true);
    const compact = (n: number) => `${'- '.repeat(n)}a\n`;
    expect(yamlNestedDeeperThan(compact(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(yamlNestedDeeperThan(compact(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    const indented = (n: number) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1\n';
    expect(yamlNestedDeeperThan(indented(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(yamlNestedDeeperThan(indented(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    expect(nestedDeeperThan(parse(indented(MAX_BODY_DEPTH)), MAX_BODY_DEPTH)).toBe(false);
  });

  it('agrees with the parsed value on ordinary bundles, brackets in strings and comments included', () => {
    const bundle = [
      'queues: [{name: default, limits: {concurrency: 2}}]',
      'routines:',
      '  - name: "a[[[["',
      "    owner: 'b{{'",
      '    note: c[d  # [[[[[',
      '    payload: {x: [1, [2, [3]]]}',
      '',
    ].join('\n');
    expect(yamlNestedDeeperThan(bundle, 7)).toBe(false);
    expect(nestedDeeperThan(parse(bundle), 7)).toBe(false);
    expect(yamlNestedDeeperThan(bundle, 6)).toBe(true);
    expect(nestedDeeperThan(parse(bundle), 6)).toBe(true);
  });
});
