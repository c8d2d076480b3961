import { SetMetadata } from '@nestjs/common';
import type { CandidateInput } from '@drover/core';

export const CANDIDATE_PROVIDER_METADATA = 'drover:candidate-provider';

/** What a candidate provider learns about the tick it serves. Times are epoch ms. */
export interface CandidateContext {
  routine: string;
  slot: number;
  /** The routine's `selector.args`. */
  args?: Record<string, unknown>;
  signal: AbortSignal;
}

/** Answers what may be owed now: `{key, band, stalenessSec, depth?, emphasis?, disabled?}` each. */
export type CandidateProviderFn = (ctx: CandidateContext) => Promise<CandidateInput[]> | CandidateInput[];

/**
 * Marks a provider method as the named candidate provider selector routines refer to
 * (`selector: { provider: name }`). Found at boot through Nest discovery, like `@Condition`.
 */
export const CandidateProvider = (name: string): MethodDecorator => SetMetadata(CANDIDATE_PROVIDER_METADATA, name);
