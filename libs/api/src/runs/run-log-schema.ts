import { z } from 'zod';
import type { RunLogLine } from '@drover/core';
import { RUN_LOG_PAGE_MAX, type RunLogPage } from '@drover/store';
import { isoOf, isoSchema as iso } from '../http/api-time';
import { named } from '../openapi/api-schemas';

export const RunLogLineSchema = named(
  'RunLogLine',
  z.object({
    seq: z.number().int().positive().meta({ description: "The line's number in the run, from 1, across attempts" }),
    at: iso
      .optional()
      .meta({ description: 'When the handler wrote it (absent on a line a plain BullMQ job.log wrote)' }),
    message: z.string(),
    fields: z.record(z.string(), z.unknown()).optional(),
  }),
  "One line a handler wrote to its run's log (`ctx.log(message, fields)`)",
);

export const RunLogPageSchema = named(
  'RunLogPage',
  z.object({
    lines: z.array(RunLogLineSchema),
    next: z.number().int().positive().meta({ description: 'The `from` that asks for the lines after these' }),
    dropped: z
      .number()
      .int()
      .nonnegative()
      .meta({ description: "How many of the run's first lines are no longer kept (the queue's retention.logLines)" }),
  }),
  "A page of a run's log, oldest first",
);

export const runLogQuery = z.strictObject({
  from: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(RUN_LOG_PAGE_MAX).default(RUN_LOG_PAGE_MAX),
});

export function toApiLogLine(l: RunLogLine): z.infer<typeof RunLogLineSchema> {
  return {
    seq: l.seq!,
    ...(l.at !== undefined && { at: isoOf(l.at) }),
    message: l.message,
    ...(l.fields !== undefined && { fields: l.fields }),
  };
}

export function toApiLogPage(p: RunLogPage): z.infer<typeof RunLogPageSchema> {
  return { lines: p.lines.map(toApiLogLine), next: p.next, dropped: p.dropped };
}
