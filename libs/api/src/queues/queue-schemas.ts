import { z } from 'zod';
import { ORIGINS, queueSchema } from '@drover/core';
import { isoSchema as iso } from '../http/api-time';
import { named } from '../openapi/api-schemas';
import { RunSchema } from '../runs/run-schema';
import { parkedFilterSchema } from './parked-filter';

export const QueuePolicySchema = named(
  'QueuePolicy',
  queueSchema.extend({}),
  'A queue policy with every default filled in (docs/core.md).',
);

export const QueueSchema = named(
  'Queue',
  z.object({
    name: z.string(),
    origin: z.enum(ORIGINS),
    updatedAt: iso,
    policy: QueuePolicySchema,
    paused: z.boolean(),
    counts: z.object({
      waiting: z.number().int(),
      active: z.number().int(),
      delayed: z.number().int(),
      prioritized: z.number().int(),
      parked: z.number().int(),
    }),
    workers: z.array(
      z.object({
        instanceId: z.string(),
        concurrency: z.number().int(),
        draining: z.boolean(),
        heartbeatAt: iso,
      }),
    ),
    keys: z
      .array(z.object({ key: z.string(), running: z.number().int(), waiting: z.number().int() }))
      .optional()
      .describe(
        'For a queue with a `concurrencyKey` policy: its busiest keys (at most 20, most runs first), with their running and held runs',
      ),
  }),
  'A queue: its policy, whether it hands out runs, how many runs are in each state, who consumes it.',
);

export const ParkedPageSchema = named(
  'ParkedPage',
  z.object({ items: z.array(RunSchema), next_page_token: z.string().optional() }),
  'A page of parked runs (each a `Run` whose `errors` holds every failed attempt), newest parked first.',
);

export const OperationSchema = named(
  'Operation',
  z.object({
    id: z.string(),
    kind: z.enum(['replay', 'purge']),
    queue: z.string(),
    status: z.enum(['running', 'done', 'failed', 'abandoned']),
    filter: parkedFilterSchema,
    ratePerSecond: z.number(),
    matched: z.number().int(),
    done: z.number().int(),
    skipped: z.number().int(),
    failed: z.number().int(),
    error: z.string().optional(),
    by: z.string(),
    instance: z.string(),
    startedAt: iso,
    heartbeatAt: iso,
    finishedAt: iso.optional(),
  }),
  'A bulk replay or purge of parked runs. `done` counts every handled run (skipped and failed included); ' +
    '`abandoned`: still marked running, but its api process stopped refreshing it.',
);

export const OperationStartedSchema = named(
  'OperationStarted',
  z.object({ operationId: z.string(), matched: z.number().int() }),
);

export const DryRunSchema = named(
  'BulkDryRun',
  z.object({ dryRun: z.literal(true), matched: z.number().int() }),
  'How many parked runs the operation would handle; nothing was changed.',
);
