import { z } from 'zod';
import { closestField, fieldsAt, MAX_SUGGESTED_KEY_LENGTH, shownKey, unknownFieldMessage } from './unknown-field';

describe('unknown fields', () => {
  it('suggests the field a typo or a wrong case most likely meant, and nothing far off', () => {
    expect(closestField('concurency', ['concurrency', 'queue'])).toBe('concurrency');
    expect(closestField('JobType', ['jobType'])).toBe('jobType');
    expect(closestField('cron', ['tz', 'kind'])).toBeUndefined();
    expect(closestField('ab', ['xy'])).toBeUndefined();
  });

  it('suggests nothing for a key longer than any field name, without comparing it (bounded work)', () => {
    const long = 'a'.repeat(MAX_SUGGESTED_KEY_LENGTH + 1);
    expect(closestField(long, [long.slice(1)])).toBeUndefined();
    // A 1 MB key one edit from a 1 MB "field": the edit distance alone would take 10^12 steps.
    const huge = 'x'.repeat(1_000_000);
    expect(closestField(huge, [`${huge}y`, 'queue'])).toBeUndefined();
    expect(closestField(huge.toUpperCase(), [huge])).toBeUndefined();
    const message = unknownFieldMessage(huge, ['queue', 'name']);
    expect(message).toBe(`unknown field "${'x'.repeat(64)}… (1000000 characters)"; valid fields: queue, name`);
  });

  it('shows a short key whole and a long one by its start and length', () => {
    expect(shownKey('colour')).toBe('colour');
    expect(shownKey('k'.repeat(64))).toBe('k'.repeat(64));
    expect(shownKey('k'.repeat(65))).toBe(`${'k'.repeat(64)}… (65 characters)`);
  });

  it('says what is valid when nothing is close', () => {
    expect(unknownFieldMessage('colour', ['queue', 'name'])).toBe('unknown field "colour"; valid fields: queue, name');
    expect(unknownFieldMessage('nme', ['queue', 'name'])).toBe('unknown field "nme"; did you mean "name"?');
    expect(unknownFieldMessage('x', undefined)).toBe('unknown field "x"');
  });

  it('finds the fields of the object at a path, through optional, default, array and union-free wrappers', () => {
    const schema = z.strictObject({
      trigger: z.strictObject({ kind: z.string(), cron: z.string().optional() }).optional(),
      items: z.array(z.strictObject({ a: z.number() })).default([]),
    });
    expect(fieldsAt(schema, [])).toEqual(['trigger', 'items']);
    expect(fieldsAt(schema, ['trigger'])).toEqual(['kind', 'cron']);
    expect(fieldsAt(schema, ['items', 0])).toEqual(['a']);
    expect(fieldsAt(schema, ['nope'])).toBeUndefined();
  });

  it('resolves a discriminated union to the option the input names, and to nothing without one', () => {
    const schema = z.strictObject({
      t: z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('a'), alpha: z.number() }),
        z.strictObject({ kind: z.literal('b'), beta: z.number() }),
      ]),
    });
    expect(fieldsAt(schema, ['t'], { t: { kind: 'b' } })).toEqual(['kind', 'beta']);
    expect(fieldsAt(schema, ['t'], { t: { kind: 'c' } })).toBeUndefined();
    expect(fieldsAt(schema, ['t'])).toBeUndefined();
  });
});
