import { z } from 'zod';
import { nameSchema, parseIsoInstant } from '@drover/core';
import type { ParkedRun } from '@drover/store';
import { isoInstantInput as instant, utcOf } from '../http/api-time';

/**
 * Which parked runs an operation or a listing concerns; every given field must hold. `error` is
 * a case-insensitive substring of the run's last error message; `before`/`after` bound when the
 * run was parked (exclusive).
 */
export const parkedFilterSchema = z
  .strictObject({
    jobType: z.string().min(1).max(256).optional(),
    routine: nameSchema.optional(),
    error: z.string().min(1).max(1000).optional(),
    before: instant.optional(),
    after: instant.optional(),
  })
  .refine((f) => !f.before || !f.after || parseIsoInstant(f.after)! < parseIsoInstant(f.before)!, {
    path: ['after'],
    message: 'must be earlier than before',
  });

export type ParkedFilterInput = z.output<typeof parkedFilterSchema>;

/** The filter as answers show it (an operation's): its instants in UTC, whatever offset they were given in. */
export function parkedFilterAnswer(input: ParkedFilterInput): ParkedFilterInput {
  return {
    ...input,
    ...(input.before && { before: utcOf(input.before) }),
    ...(input.after && { after: utcOf(input.after) }),
  };
}

/** A filter ready to match: instants as epoch ms, the error text lowercased. */
export interface ParkedFilter {
  jobType?: string;
  routine?: string;
  error?: string;
  before?: number;
  after?: number;
}

export function compileParkedFilter(input: ParkedFilterInput = {}): ParkedFilter {
  return {
    ...(input.jobType && { jobType: input.jobType }),
    ...(input.routine && { routine: input.routine }),
    ...(input.error && { error: input.error.toLowerCase() }),
    ...(input.before && { before: parseIsoInstant(input.before) }),
    ...(input.after && { after: parseIsoInstant(input.after) }),
  };
}

/** True when the parked run (parked at `parkedAt`, epoch ms) is one `filter` selects. Pure. */
export function matchesParkedFilter(filter: ParkedFilter, run: ParkedRun, parkedAt: number): boolean {
  if (filter.jobType !== undefined && run.jobType !== filter.jobType) return false;
  if (filter.routine !== undefined && run.routine !== filter.routine) return false;
  if (filter.before !== undefined && !(parkedAt < filter.before)) return false;
  if (filter.after !== undefined && !(parkedAt > filter.after)) return false;
  if (filter.error !== undefined) {
    const last = run.errors[run.errors.length - 1]?.message ?? run.error?.message ?? '';
    if (!last.toLowerCase().includes(filter.error)) return false;
  }
  return true;
}
