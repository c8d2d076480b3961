import { z } from 'zod';
import { candidateHeadersSchema } from '../contracts/http-headers.schema';
import { checkPayload } from './payload.policy';
import { boundedString, MAX_CONDITION_HEADERS_BYTES, MAX_CONDITION_URL_LENGTH, MAX_HOOK_NAME_LENGTH } from './limits';
import { nameSchema } from './name.schema';

/** The most runs a `queue-depth` condition may name as its bound. */
export const MAX_QUEUE_DEPTH_BELOW = 1_000_000;

/** `GET url`: 2xx with `{"run": true|false}` decides; anything else is a launch failure. */
const httpCondition = z.strictObject({
  kind: z.literal('http'),
  url: boundedString(MAX_CONDITION_URL_LENGTH).superRefine((url, ctx) => {
    if (url.length > MAX_CONDITION_URL_LENGTH) return;
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(url)} is not an http(s) URL; e.g. "http://127.0.0.1:8080/ready"`,
      });
    }
  }),
  headers: candidateHeadersSchema
    .superRefine((headers, ctx) => {
      for (const issue of checkPayload(headers, MAX_CONDITION_HEADERS_BYTES)) {
        ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
      }
    })
    .optional(),
});

/** Runs while queue `queue` holds fewer than `below` runs waiting for a worker. */
const queueDepthCondition = z.strictObject({
  kind: z.literal('queue-depth'),
  queue: nameSchema,
  below: z
    .number()
    .int()
    .min(1)
    .max(MAX_QUEUE_DEPTH_BELOW, { error: (i) => `${String(i.input)} is over the limit of ${MAX_QUEUE_DEPTH_BELOW}` }),
});

/** The built-in condition kinds, declared as data in the routine (no code in the scheduler app). */
export const CONDITION_KINDS = ['http', 'queue-depth'] as const;

const KIND_LIST = CONDITION_KINDS.map((k) => `"${k}"`);

/** Why a condition that matches none of its forms does not: a wrong kind, or not a name nor a mapping. */
function formProblem(input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const kind = (input as { kind?: unknown }).kind;
    return `kind ${kind === undefined ? 'is missing' : `${JSON.stringify(kind)} is not known`}; it is one of ${KIND_LIST.join(', ')}`;
  }
  return `must be the name of a registered @Condition or a mapping with kind ${KIND_LIST.join(' or ')}`;
}

const conditionKindSchema = z.discriminatedUnion('kind', [httpCondition, queueDepthCondition]);

/**
 * A routine's `condition`: the name of a `@Condition` registered in the scheduler app, or a built-in
 * kind as data — `{kind: http, url, headers?}` or `{kind: queue-depth, queue, below}`.
 */
export const conditionSchema = z.union([boundedString(MAX_HOOK_NAME_LENGTH).min(1), conditionKindSchema], {
  error: (i) => (i.code === 'invalid_union' ? formProblem(i.input) : undefined),
});

export type Condition = z.infer<typeof conditionSchema>;
export type ConditionSpec = Exclude<Condition, string>;
export type HttpCondition = z.infer<typeof httpCondition>;
export type QueueDepthCondition = z.infer<typeof queueDepthCondition>;

/** JSON with the keys of every mapping sorted: the same value always reads the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The key one verdict is kept under for a dispatch: a name stands for itself, a built-in kind for
 * its canonical JSON (so two spellings of the same condition share a verdict, and no name can be
 * mistaken for a kind: names are prefixed `name:`, kinds `kind:`).
 */
export function conditionKey(condition: Condition): string {
  return typeof condition === 'string' ? `name:${condition}` : `kind:${canonical(condition)}`;
}

/** A condition in one line, as logs, errors and views name it (headers are never shown: they may hold secrets). */
export function describeCondition(condition: Condition): string {
  if (typeof condition === 'string') return condition;
  if (condition.kind === 'http') return `http GET ${condition.url}`;
  return `queue-depth ${condition.queue} < ${condition.below}`;
}
