import fc from 'fast-check';
import { fileSchema } from './profile-schema';
import { wellFormedProfileFile } from './profile-shape';

/**
 * The hand check that spares every `drover` start loading zod must accept exactly what the schema
 * accepts, with the same data: otherwise a broken profile file would pass unexplained, or a good
 * one would be read differently.
 */
describe('wellFormedProfileFile', () => {
  const text = fc.oneof(fc.constant(''), fc.constant('http://127.0.0.1:3000'), fc.string({ maxLength: 4 }));
  // Mostly strings, so files that are valid but for one rule come up often.
  const value = fc.oneof(
    { arbitrary: text, weight: 6 },
    fc.constant(null),
    fc.integer(),
    fc.constant(undefined),
    fc.constant([]),
  );
  const profile = fc.oneof(
    fc.record({ url: value, token: value, tokenFile: value, tokne: value }, { requiredKeys: [] }),
    value,
  );
  const file = fc.oneof(
    fc.record(
      {
        current: value,
        profiles: fc.oneof(fc.dictionary(fc.constantFrom('local', 'prod'), profile), value),
        extra: value,
      },
      { requiredKeys: [] },
    ),
    value,
  );

  it('accepts exactly what the schema accepts, with the same data', () => {
    fc.assert(
      fc.property(file, (raw) => {
        const parsed = fileSchema.safeParse(raw);
        const quick = wellFormedProfileFile(raw);
        if (!parsed.success) return quick === undefined;
        // The schema keeps an `undefined` it was given; the file's reader never looks at one.
        return quick !== undefined && JSON.stringify(quick) === JSON.stringify(parsed.data);
      }),
      { numRuns: 5_000 },
    );
  });

  const url = 'http://127.0.0.1:3000';
  it.each([
    ['an unknown profile field', { profiles: { p: { url, tokne: 't' } } }],
    ['an unknown top-level field', { profile: {} }],
    ['an empty url', { profiles: { p: { url: '' } } }],
    ['no url', { profiles: { p: { token: 't' } } }],
    ['token and tokenFile', { profiles: { p: { url, token: 't', tokenFile: 'f' } } }],
    ['an empty token', { profiles: { p: { url, token: '' } } }],
    ['a number for current', { current: 1 }],
    ['null profiles', { profiles: null }],
    ['a list of profiles', { profiles: [{ url }] }],
    ['a list', []],
  ])('refuses %s, as the schema does', (_, raw) => {
    expect(fileSchema.safeParse(raw).success).toBe(false);
    expect(wellFormedProfileFile(raw)).toBeUndefined();
  });

  it('reads a usual file', () => {
    expect(
      wellFormedProfileFile({ current: 'local', profiles: { local: { url: 'http://127.0.0.1:3000', token: 't' } } }),
    ).toEqual({ current: 'local', profiles: { local: { url: 'http://127.0.0.1:3000', token: 't' } } });
    expect(wellFormedProfileFile({})).toEqual({ profiles: {} });
  });
});
