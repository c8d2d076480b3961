import { z } from 'zod';
import { CANDIDATE_VERDICTS, candidateSchema, RUN_STATUSES } from '@drover/core';
import { isoSchema as iso } from '../http/api-time';
import { named } from '../openapi/api-schemas';

/** The body of POST /routines/{name}/overrides: the candidate key to serve next. */
export const overrideBody = z.strictObject({ key: candidateSchema.shape.key });

export const OverrideSchema = named(
  'Override',
  z.object({
    key: z.string(),
    runId: z.string(),
    /** `queued` or `scheduled` until it starts; `running` once it did (it can no longer be cleared). */
    status: z.enum(RUN_STATUSES),
    createdAt: iso,
    createdBy: z.string().nullable(),
  }),
);

export const OverrideListSchema = named('OverrideList', z.object({ items: z.array(OverrideSchema) }));

export const ClearedOverridesSchema = named(
  'ClearedOverrides',
  z.object({
    /** The runs of the overrides canceled (those that had not started). */
    cleared: z.array(z.string()),
  }),
);

export const RankedCandidateSchema = named(
  'RankedCandidate',
  z.object({
    rank: z.number().int(),
    key: z.string(),
    band: z.number().int(),
    /** As the provider answered; null: never done. */
    stalenessSec: z.number().nullable(),
    depth: z.number().nullable(),
    emphasis: z.number().nullable(),
    disabled: z.boolean(),
    /** `stalenessSec × (depth + 1) ^ (depthWeight × emphasis)`; null: never done (stalest of all). */
    weightedStalenessSec: z.number().nullable(),
    /** What the tick would do with it, and why. */
    verdict: z.enum(CANDIDATE_VERDICTS),
  }),
);

export const CandidateRankingSchema = named(
  'CandidateRanking',
  z.object({
    routine: z.string(),
    /** When the scheduler asked the provider. */
    at: iso,
    provider: z.string(),
    maxPerTick: z.number().int(),
    depthWeight: z.number(),
    /** Why the provider's answer is unusable (a tick would count a launch failure), or null. */
    error: z.string().nullable(),
    items: z.array(RankedCandidateSchema),
  }),
);
