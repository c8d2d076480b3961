import { z } from 'zod';
import { defineJob, httpRequestJob, sleepJob, type JobContract } from '@drover/core';

/** Headers the worker sets on every `http.request` itself (docs/api.md); a payload's would be replaced. */
const DROVER_HEADER = /^x-drover-/i;

function droverHeaderNames(payload: unknown): string[] {
  const headers = (payload as { headers?: unknown } | null)?.headers;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return [];
  return Object.keys(headers).filter((name) => DROVER_HEADER.test(name));
}

/**
 * `http.request` as the API accepts it: the built-in handler's own payload schema, and no
 * `X-Drover-*` header — the worker would replace it at run time, so the caller would not get what
 * they asked for; saying so at enqueue beats a silent substitution. Both checks always run, so one
 * answer names every bad field. The payload is stored as given (the worker parses it again).
 */
const apiHttpRequestJob = defineJob(httpRequestJob.jobType, {
  payload: z.unknown().superRefine((payload, ctx) => {
    const res = httpRequestJob.payload.safeParse(payload);
    for (const issue of res.error?.issues ?? []) {
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
    for (const name of droverHeaderNames(payload)) {
      ctx.addIssue({
        code: 'custom',
        path: ['headers', name],
        message:
          'X-Drover-* headers are set by the worker on every request (run id, routine, slot, attempt); a payload may not set them',
      });
    }
  }),
});

/**
 * The payload contracts of the built-in job types, which the API checks before enqueueing (what
 * the worker would otherwise refuse only at run time). Other job types are the teams' own: their
 * payload is checked only for being plain JSON within the size cap.
 */
export const API_JOB_CONTRACTS: ReadonlyMap<string, JobContract> = new Map<string, JobContract>([
  [apiHttpRequestJob.jobType, apiHttpRequestJob],
  [sleepJob.jobType, sleepJob as JobContract],
]);
