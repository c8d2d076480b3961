import type { Job } from 'bullmq';

/**
 * The job a @nestjs/bullmq processor's `process(job)` is given. A job a plain BullMQ producer
 * added is handed over as it is; a Drover run (its data a run record: an enqueue through the API,
 * a routine's run, a replay) as a view of its job whose `data` is the run's payload, so the
 * processor reads the same shape whoever produced the job. Everything else (`id`, `name`,
 * `attemptsMade`, `timestamp`, `updateProgress`, `log`, ...) is the job's own.
 */
export function processorJob(job: Job, payload: unknown): Job {
  if (job.data === payload) return job;
  return Object.create(job, { data: { value: payload, writable: true, enumerable: true } }) as Job;
}
