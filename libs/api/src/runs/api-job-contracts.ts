import { defineJob, type JobContract } from '@drover/core';
import { httpRequestJob, sleepJob } from '@drover/builtins';

/** Headers the worker sets on every `http.request` itself (spec §5); a payload's would be replaced. */
const DROVER_HEADER = /^x-drover-/i;

/**
 * `http.request` as the API accepts it: the built-in handler's own payload schema, and no
 * `X-Drover-*` header — the worker would replace it at run time, so the caller would not get what
 * they asked for; saying so at enqueue beats a silent substitution.
 */
const apiHttpRequestJob = defineJob(httpRequestJob.jobType, {
  payload: httpRequestJob.payload.superRefine((p, ctx) => {
    for (const name of Object.keys(p.headers ?? {})) {
      if (DROVER_HEADER.test(name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['headers', name],
          message:
            'X-Drover-* headers are set by the worker on every request (run id, routine, slot, attempt); a payload may not set them',
        });
      }
    }
  }),
});

/**
 * The payload contracts of the built-in job types, which the API checks before enqueueing (what
 * the worker would otherwise refuse only at run time). Other job types are the teams' own: their
 * payload is checked only for being plain JSON within the size cap.
 */
export const API_JOB_CONTRACTS: ReadonlyMap<string, JobContract> = new Map<string, JobContract>([
  [apiHttpRequestJob.jobType, apiHttpRequestJob as JobContract],
  [sleepJob.jobType, sleepJob as JobContract],
]);
