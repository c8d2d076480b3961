import { z } from 'zod';
import { parseIsoInstant } from '@drover/core';

/*
 * The API's one time convention: every instant it answers is an ISO 8601 string in UTC
 * (`2026-11-22T19:40:00.000Z`); durations are numbers of milliseconds with `Ms` in their names.
 * Stores and the cluster clock keep epoch ms; answers convert at the edge with isoOf/optIso.
 */

/** An instant in an answer (OpenAPI `format: date-time`). */
export const isoSchema = z.string().meta({ format: 'date-time' });

/** Anything outside Date's range is shown as the epoch, never thrown (a corrupt record must not make a 500). */
export const isoOf = (ms: number): string =>
  new Date(Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? ms : 0).toISOString();

/** `{ [key]: iso }` when `ms` is set, `{}` otherwise: for spreading optional instants into an answer. */
export const optIso = <K extends string>(key: K, ms: number | undefined) =>
  (ms === undefined ? {} : { [key]: isoOf(ms) }) as Partial<Record<K, string>>;

/** An instant in a request (query or body): ISO 8601 with an explicit offset; parse it with parseIsoInstant. */
export const isoInstantInput = z
  .string()
  .refine((s) => parseIsoInstant(s) !== undefined, {
    message: 'must be an ISO 8601 instant with an offset, e.g. "2026-12-24T18:00:00Z"',
  })
  .meta({ format: 'date-time' });

/** An instant a request gave (any offset) as the API answers instants: in UTC. */
export const utcOf = (instant: string): string => isoOf(parseIsoInstant(instant) ?? Number.NaN);
