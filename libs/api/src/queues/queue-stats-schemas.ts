import { z } from 'zod';
import { parseStatsWindow, type QueueStatsSummary } from '@drover/core';
import { isoOf, isoSchema as iso } from '../http/api-time';
import { named } from '../openapi/api-schemas';

/** `window`: as the routine stats take it, 1h to 7d. */
export const statsWindowQuery = z.strictObject({
  window: z
    .string()
    .default('24h')
    .superRefine((w, ctx) => {
      const res = parseStatsWindow(w);
      if (!res.ok) ctx.addIssue({ code: 'custom', message: res.error });
    }),
});

const nullableMs = z.number().nullable();

const TotalsSchema = named(
  'QueueTotals',
  z.object({
    /** Attempts that ended on a worker: succeeded, canceled, failed (retried or parked). */
    processed: z.number().int(),
    /** Attempts that failed: those that will retry and those that parked their run. */
    failed: z.number().int(),
    /** Runs parked (attempts exhausted or a permanent error). */
    parked: z.number().int(),
    succeeded: z.number().int(),
    canceled: z.number().int(),
    retried: z.number().int(),
  }),
);

const PointSchema = z.object({
  /** Start of the point; it covers `stepMs` (the first and the last may be partial). */
  at: iso,
  processed: z.number().int(),
  failed: z.number().int(),
  parked: z.number().int(),
  /** Lateness of the runs that first started in this point: p50 and p95 estimated from a fixed histogram. */
  latenessP50Ms: nullableMs,
  latenessP95Ms: nullableMs,
});

const summaryFields = {
  window: z.string(),
  /** Whole minutes (whole hours past 24h) from `from` to `to`. */
  from: iso,
  to: iso,
  stepMs: z.number().int(),
  totals: TotalsSchema,
  /** Lateness of first starts: against its slot for a routine's run, against when it was due for any other. */
  latenessMs: z.object({ p50: nullableMs, p95: nullableMs, p99: nullableMs }),
  points: z.array(PointSchema),
};

export const QueueStatsSchema = named('QueueStats', z.object({ queue: z.string(), ...summaryFields }));

export const OverallStatsSchema = named(
  'OverallStats',
  z.object({
    ...summaryFields,
    /** Each queue's totals over the same window (its points: GET /queues/{name}/stats). */
    queues: z.array(
      z.object({
        queue: z.string(),
        totals: TotalsSchema,
        latenessMs: z.object({ p50: nullableMs, p95: nullableMs, p99: nullableMs }),
      }),
    ),
  }),
);

/** A summary as the api answers it. */
export function summaryView(window: string, s: QueueStatsSummary) {
  return {
    window,
    from: isoOf(s.from),
    to: isoOf(s.to),
    stepMs: s.stepMs,
    totals: s.totals,
    latenessMs: s.latenessMs,
    points: s.points.map((p) => ({ ...p, at: isoOf(p.at) })),
  };
}
