import { z } from 'zod';
import {
  APPROVAL_STATES,
  ATTEMPT_FAILURE_KINDS,
  FLOW_CHILD_FAILURES,
  RUN_SOURCES,
  RUN_STATUSES,
  type ApprovalView,
} from '@drover/core';
import { INLINE_CAP_BYTES, type AttemptRecord, type RunView } from '@drover/store';
import { isoOf, isoSchema as iso, optIso } from '../http/api-time';
import { named } from '../openapi/api-schemas';

export const RunAttemptSchema = named(
  'RunAttempt',
  z.object({
    attempt: z.number().int(),
    kind: z.enum(ATTEMPT_FAILURE_KINDS),
    message: z.string(),
    stack: z.string().optional(),
    startedAt: iso.optional(),
    failedAt: iso,
    worker: z.string().optional(),
  }),
  'One failed attempt of a run',
);

export const RunFlowSchema = named(
  'RunFlow',
  z.object({
    parent: z.object({ id: z.string(), queue: z.string() }).optional().describe('The run this one is a child of'),
    onFailure: z
      .enum(FLOW_CHILD_FAILURES)
      .optional()
      .describe(
        "A child's: whether its parking parks its parent (`fail`) or is left for the parent to read (`ignore`)",
      ),
    children: z
      .array(
        z.object({
          id: z.string(),
          queue: z.string(),
          jobType: z.string(),
          status: z
            .enum(RUN_STATUSES)
            .optional()
            .describe('GET /runs/{id} only (never in a listing); absent for a child removed by its retention'),
          onFailure: z
            .enum(FLOW_CHILD_FAILURES)
            .optional()
            .describe('What its parking does to this run (`fail`: parks it; `ignore`); GET /runs/{id} only'),
          children: z
            .number()
            .int()
            .optional()
            .describe('How many children of its own it has (0 for a leaf); GET /runs/{id} only'),
        }),
      )
      .optional()
      .describe('The runs this one waits for, in the order given (a child may have children of its own)'),
  }),
  "A run's place in a flow: a parent starts once every child finished (succeeded, canceled, or parked and ignored)",
);

export const RunApprovalSchema = named(
  'RunApproval',
  z.object({
    required: z.literal(true),
    state: z.enum(APPROVAL_STATES),
    by: z.string().optional().describe('Who approved or rejected the run'),
    at: iso.optional().describe('When it was approved, rejected or expired'),
    expiresAt: iso.optional().describe('When a run still waiting is rejected by its expiry'),
    reason: z.string().optional(),
  }),
  'The approval of a run whose queue or routine requires one: `waiting` (the run is `awaiting-approval`), ' +
    '`approved`, `rejected` or `expired` (both end the run `canceled`)',
);

function approvalOf(a: ApprovalView): z.infer<typeof RunApprovalSchema> {
  return {
    required: true,
    state: a.state,
    ...(a.by !== undefined && { by: a.by }),
    ...optIso('at', a.at),
    ...optIso('expiresAt', a.expiresAt),
    ...(a.reason !== undefined && { reason: a.reason }),
  };
}

/** The run as the API shows it: the run of docs/core.md, times as ISO 8601 (UTC). */
export const RunSchema = named(
  'Run',
  z.object({
    id: z.string(),
    routine: z.string().nullable(),
    jobType: z.string(),
    queue: z.string(),
    source: z.enum(RUN_SOURCES),
    /** The slot (or requested start); null for an ad-hoc run enqueued to start now. */
    scheduledFor: iso.nullable(),
    status: z.enum(RUN_STATUSES),
    attempt: z.number().int(),
    /** The run's own maxAttempts, else (it stores none) its queue's as it is now. */
    maxAttempts: z.number().int(),
    priority: z.number().optional(),
    payload: z.unknown().optional(),
    error: z
      .object({ message: z.string(), stack: z.string().optional(), permanent: z.boolean().optional() })
      .optional(),
    errors: z.array(RunAttemptSchema).optional(),
    result: z.unknown().optional(),
    progress: z.unknown().optional(),
    checkpoint: z
      .object({
        at: iso.describe('When it was recorded'),
        attempt: z.number().int().describe('The attempt that recorded it'),
        size: z.number().int().describe("Its state's size, bytes of JSON (at most 64 KiB)"),
        state: z.unknown().describe('What the handler recorded to resume from'),
      })
      .optional()
      .describe(
        'The last checkpoint its handler recorded (`ctx.checkpoint`): a retry, a reclaim or a hand-back resumes from it. GET /runs/{id} only, never in a listing; a replay starts fresh',
      ),
    worker: z.string().optional(),
    /** The producer's name (a run stores a short code for it; an unknown code reads as the code). */
    createdBy: z.string().optional(),
    reason: z.string().optional(),
    replayOf: z.string().optional(),
    batch: z.string().optional().describe('The batch the run belongs to'),
    replayedAs: z.string().optional(),
    key: z.string().optional(),
    /**
     * concurrencyPolicy `buffer-one`: the run was made while this run of its routine was active.
     * While `scheduled` it waits for the routine's active run to end; afterwards it says it waited.
     */
    bufferedBehind: z
      .string()
      .optional()
      .describe('buffer-one: made while this run was active; waits for it to end while `scheduled`'),
    concurrencyKey: z
      .string()
      .optional()
      .describe("The run's concurrency key, when its queue limits runs per key (`concurrencyKey` policy)"),
    waitingForKey: z
      .literal(true)
      .optional()
      .describe('Set while the run is held back because its key runs as many runs as its limit allows'),
    flow: RunFlowSchema.optional(),
    waitingForChildren: z
      .literal(true)
      .optional()
      .describe("Set while a flow's parent waits for its children to finish (its status reads `queued`)"),
    trigger: z
      .string()
      .optional()
      .describe(
        'For a run of a slot of a routine with a `triggers` list: the trigger the slot is attributed to (its name, else its index)',
      ),
    approval: RunApprovalSchema.optional(),
    createdAt: iso,
    updatedAt: iso,
    queuedAt: iso.optional(),
    startedAt: iso.optional(),
    finishedAt: iso.optional(),
    nextAttemptAt: iso.optional(),
    omitted: z
      .array(
        z.object({
          field: z.enum(['payload', 'result', 'errors', 'progress', 'error', 'children']),
          bytes: z.number().int().describe('Its size as stored (for a payload: about)'),
        }),
      )
      .optional()
      .describe(
        `Listings only: parts of the run left out of this item (or, for \`errors\`, cut to the newest attempts) ` +
          `because they are longer than ${INLINE_CAP_BYTES / 1024} KiB; GET /runs/{id} answers the run whole`,
      ),
  }),
  'A run: one execution of a job (its status, attempts, errors with stacks, progress and times)',
);
export type ApiRun = z.infer<typeof RunSchema>;

function attemptOf(a: AttemptRecord): z.infer<typeof RunAttemptSchema> {
  return {
    attempt: a.attempt,
    kind: a.kind,
    message: a.message,
    ...(a.stack !== undefined && { stack: a.stack }),
    ...optIso('startedAt', a.startedAt),
    failedAt: isoOf(a.failedAt),
    ...(a.worker !== undefined && { worker: a.worker }),
  };
}

/** What a listing's `include` query parameter may ask for besides the default fields. */
export const LIST_INCLUDES = ['payload'] as const;

/** The `include` query parameter of the run listings. */
export const includeQuery = z
  .enum(LIST_INCLUDES)
  .optional()
  .describe(
    `\`payload\`: list items carry each run's payload (those up to ${INLINE_CAP_BYTES / 1024} KiB; a longer one is ` +
      'named in `omitted` — read it with GET /runs/{id}). Without it, list items have no payload.',
  );

/**
 * A run as a listing shows it: without its payload unless `include` asks for it (a listing reads
 * runs lean, so a long payload is not there to show anyway: `omitted` says so). Pure.
 */
export function toApiListItem(v: RunView, include?: (typeof LIST_INCLUDES)[number]): ApiRun {
  const run = toApiRun(v);
  if (include === 'payload') return run;
  delete run.payload;
  const omitted = run.omitted?.filter((o) => o.field !== 'payload');
  if (omitted?.length) run.omitted = omitted;
  else delete run.omitted;
  return run;
}

/** The API's run from the store's view (field by field: nothing the schema lacks can leak). Pure. */
export function toApiRun(v: RunView): ApiRun {
  return {
    id: v.id,
    routine: v.routine,
    jobType: v.jobType,
    queue: v.queue,
    source: v.source,
    scheduledFor: v.scheduledFor === null ? null : isoOf(v.scheduledFor),
    status: v.status,
    attempt: v.attempt,
    maxAttempts: v.maxAttempts,
    ...(v.priority !== undefined && { priority: v.priority }),
    ...(v.payload !== undefined && { payload: v.payload }),
    ...(v.error && {
      error: {
        message: v.error.message,
        ...(v.error.stack !== undefined && { stack: v.error.stack }),
        ...(v.error.permanent !== undefined && { permanent: v.error.permanent }),
      },
    }),
    ...(v.errors && { errors: v.errors.map(attemptOf) }),
    ...(v.result !== undefined && { result: v.result }),
    ...(v.progress !== undefined && { progress: v.progress }),
    ...(v.checkpoint && {
      checkpoint: {
        at: isoOf(v.checkpoint.at),
        attempt: v.checkpoint.attempt,
        size: v.checkpoint.size,
        state: v.checkpoint.state,
      },
    }),
    ...(v.worker !== undefined && { worker: v.worker }),
    ...(v.createdBy !== undefined && { createdBy: v.createdBy }),
    ...(v.reason !== undefined && { reason: v.reason }),
    ...(v.replayOf !== undefined && { replayOf: v.replayOf }),
    ...(v.batch !== undefined && { batch: v.batch }),
    ...(v.replayedAs !== undefined && { replayedAs: v.replayedAs }),
    ...(v.key !== undefined && { key: v.key }),
    ...(v.bufferedBehind !== undefined && { bufferedBehind: v.bufferedBehind }),
    ...(v.concurrencyKey !== undefined && { concurrencyKey: v.concurrencyKey }),
    ...(v.waitingForKey && { waitingForKey: true as const }),
    ...(v.flow && { flow: v.flow }),
    ...(v.waitingForChildren && { waitingForChildren: true as const }),
    ...(v.trigger !== undefined && { trigger: v.trigger }),
    ...(v.approval && { approval: approvalOf(v.approval) }),
    createdAt: isoOf(v.createdAt),
    updatedAt: isoOf(v.updatedAt),
    ...optIso('queuedAt', v.queuedAt),
    ...optIso('startedAt', v.startedAt),
    ...optIso('finishedAt', v.finishedAt),
    ...optIso('nextAttemptAt', v.nextAttemptAt),
    ...(v.omitted?.length && { omitted: v.omitted.map((o) => ({ field: o.field, bytes: o.bytes })) }),
  };
}
