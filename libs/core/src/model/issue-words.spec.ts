import { z } from 'zod';
import { droverIssueWords } from './issue-words';

/** The messages a schema's failure gets with Drover's words as the parse's error map. */
const said = (schema: z.ZodType, value: unknown) =>
  schema.safeParse(value, { error: droverIssueWords }).error?.issues.map((i) => i.message);

describe("a policy problem in Drover's words", () => {
  it('names a missing field and a wrong type by what a policy file holds', () => {
    expect(said(z.object({ a: z.string() }), {})).toEqual(['missing (a string is required)']);
    expect(said(z.array(z.number()), [true, null, [], {}, 'x'])).toEqual([
      'must be a number, not true (a boolean)',
      'must be a number, not null',
      'must be a number, not a list',
      'must be a number, not a mapping',
      'must be a number, not a string',
    ]);
    expect(said(z.int(), 2.5)).toEqual(['must be an integer, not 2.5']);
    expect(said(z.record(z.string(), z.string()), 3)).toEqual(['must be a mapping (key: value), not an integer']);
  });

  it('says which bound a size or number is past', () => {
    expect(said(z.string().min(1), '')).toEqual(['must not be empty']);
    expect(said(z.string().min(3).max(4), 'x')).toEqual(['must be at least 3 characters']);
    expect(said(z.string().max(4), 'xxxxx')).toEqual(['must be at most 4 characters']);
    expect(said(z.array(z.string()).min(1), [])).toEqual(['must not be empty']);
    expect(said(z.array(z.string()).max(1), ['a', 'b'])).toEqual(['must have at most 1 item']);
    expect(said(z.number().min(2), 1)).toEqual(['must be at least 2']);
    expect(said(z.number().lt(2), 3)).toEqual(['must be less than 2']);
    expect(said(z.number().multipleOf(5), 3)).toEqual(['must be a multiple of 5']);
  });

  it('lists the allowed values and names a format or a shape it does not match', () => {
    expect(said(z.enum(['a', 'b']), 'c')).toEqual(['must be one of "a", "b"']);
    expect(said(z.literal(1), 2)).toEqual(['must be 1']);
    expect(said(z.string().regex(/^x$/), 'y')).toEqual(['has characters or a shape this field does not allow']);
    expect(said(z.email(), 'y')).toEqual(['is not a valid email']);
    expect(said(z.union([z.string(), z.number()]), true)).toEqual(['matches none of the forms this field takes']);
  });

  it("leaves a schema's own message alone", () => {
    expect(said(z.string().min(1, 'give the routine a name'), '')).toEqual(['give the routine a name']);
  });
});
