import { applyDecorators, Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { z } from 'zod';
import type { JobContract } from './job-contract';

/** Per-handler options. Queue policy (and a routine's overrides) still apply. */
export interface JobHandlerOptions<P = unknown, R = unknown> {
  /** Validates (and parses) the payload before the handler runs; invalid → parked at once. */
  payload?: z.ZodType<P>;
  /** Validates the handler's result; an invalid result parks the run (a handler bug). */
  result?: z.ZodType<R>;
  /** Default timeout of this job type, used when neither the run nor its routine sets one. */
  timeoutMs?: number;
}

/** What the registry finds on a handler class. */
export interface JobHandlerMeta extends JobHandlerOptions {
  jobType: string;
}

/** The discoverable marker (Nest DiscoveryService finds providers that carry it). */
export const JobHandlerMarker = DiscoveryService.createDecorator<JobHandlerMeta>();

/**
 * Marks a provider class as the handler of a job type; the worker runtime finds it through
 * Nest's DiscoveryService. The class needs a `handle(payload, ctx)` method and must be listed in
 * a module's providers. Accepts a job type name or a typed contract from `defineJob`.
 */
export function JobHandler<P, R>(
  job: string | JobContract<P, R>,
  options: Omit<JobHandlerOptions<P, R>, 'payload' | 'result'> & Partial<JobHandlerOptions<P, R>> = {},
): ClassDecorator {
  const meta: JobHandlerMeta =
    typeof job === 'string'
      ? { jobType: job, ...(options as JobHandlerOptions) }
      : { jobType: job.jobType, payload: job.payload, result: job.result, ...(options as JobHandlerOptions) };
  if (!meta.jobType.trim()) throw new Error('@JobHandler needs a non-empty job type');
  return applyDecorators(Injectable(), JobHandlerMarker(meta));
}
