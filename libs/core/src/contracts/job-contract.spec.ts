import { z } from 'zod';
import { defineJob, type PayloadInputOf, type PayloadOf, type ResultOf } from './job-contract';

const reportsGenerate = defineJob('reports.generate', {
  payload: z.object({ month: z.string(), format: z.enum(['pdf', 'csv']).default('pdf') }),
  result: z.object({ url: z.string() }),
  queue: 'reports',
  maxAttempts: 5,
});

describe('defineJob', () => {
  it('keeps the name, schemas and producer defaults', () => {
    expect(reportsGenerate).toMatchObject({ jobType: 'reports.generate', queue: 'reports', maxAttempts: 5 });
    expect(reportsGenerate.payload.parse({ month: '2026-01' })).toEqual({ month: '2026-01', format: 'pdf' });
    expect(reportsGenerate.result!.safeParse({ url: 1 }).success).toBe(false);
  });

  it('leaves unset options out', () => {
    expect(Object.keys(defineJob('noop', { payload: z.unknown() })).sort()).toEqual(['jobType', 'payload']);
  });

  it.each([
    ['', {}, /non-empty/],
    ['  ', {}, /non-empty/],
    ['x'.repeat(201), {}, /longer than 200/],
    ['a', { queue: 'Bad Queue' }, /"Bad Queue" is not a valid queue name/],
    ['a', { maxAttempts: 0 }, /maxAttempts must be a positive integer, got 0/],
    ['a', { maxAttempts: 1.5 }, /got 1.5/],
  ])('refuses job type %j with %j', (jobType, extra, message) => {
    expect(() => defineJob(jobType, { payload: z.unknown(), ...extra })).toThrow(message);
  });

  it('derives the handler payload, the producer input and the result types', () => {
    // Type-level: checked by `tsc --noEmit` (the ts-expect-error lines fail the typecheck if the types widen).
    const handlerSide: PayloadOf<typeof reportsGenerate> = { month: '2026-01', format: 'csv' };
    const producerSide: PayloadInputOf<typeof reportsGenerate> = { month: '2026-01' };
    const result: ResultOf<typeof reportsGenerate> = { url: 'http://127.0.0.1/r.pdf' };
    // @ts-expect-error the handler always sees the default filled in
    const missingDefault: PayloadOf<typeof reportsGenerate> = { month: '2026-01' };
    // @ts-expect-error month is a string
    const wrong: PayloadInputOf<typeof reportsGenerate> = { month: 1 };
    expect([handlerSide, producerSide, result, missingDefault, wrong]).toHaveLength(5);
  });
});
