import { Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { AuthenticatedRequest } from './principal';

/**
 * BullMQ-independent per-token limit on mutating routes (429 beyond it), so one runaway script
 * cannot flood the cluster with writes. Counted per token name, per api process.
 */
@Injectable()
export class TokenThrottlerGuard extends ThrottlerGuard {
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    return Promise.resolve((req as AuthenticatedRequest).principal?.name ?? 'anonymous');
  }
}
