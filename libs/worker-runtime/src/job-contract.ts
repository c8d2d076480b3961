import type { z } from 'zod';

/**
 * A typed job contract shared by producers and the worker: the job type's name and the zod
 * schemas of its payload and (optionally) result. Payload and result types derive from them.
 */
export interface JobContract<P = unknown, R = unknown> {
  readonly jobType: string;
  readonly payload: z.ZodType<P>;
  readonly result?: z.ZodType<R>;
}

export type PayloadOf<C> = C extends JobContract<infer P, unknown> ? P : never;
export type ResultOf<C> = C extends JobContract<unknown, infer R> ? R : never;

/**
 * Declares a job contract, e.g.
 * `export const reportsGenerate = defineJob('reports.generate', { payload: z.object({ month: z.string() }) })`.
 */
export function defineJob<PS extends z.ZodType, RS extends z.ZodType = z.ZodType<unknown>>(
  jobType: string,
  schemas: { payload: PS; result?: RS },
): JobContract<z.output<PS>, z.output<RS>> {
  if (!jobType.trim()) throw new Error('a job type needs a non-empty name');
  return {
    jobType,
    payload: schemas.payload as unknown as z.ZodType<z.output<PS>>,
    result: schemas.result as unknown as z.ZodType<z.output<RS>> | undefined,
  };
}
