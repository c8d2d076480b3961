import { Injectable } from '@nestjs/common';
import { normalizeIp, ThrottlerGuard } from '@nestjs/throttler';
import type { Request } from 'express';
import type { AuthenticatedRequest } from './principal';

/**
 * BullMQ-independent per-token limit on mutating routes (429 beyond it), so one runaway script
 * cannot flood the cluster with writes. Counted per token name, per api process; a caller with no
 * token (a login) is counted per address, so one client cannot use up everybody's logins.
 */
@Injectable()
export class TokenThrottlerGuard extends ThrottlerGuard {
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    const r = req as unknown as Request & AuthenticatedRequest;
    return Promise.resolve(
      r.principal ? `token:${r.principal.name}` : `address:${normalizeIp(r.ip ?? r.socket.remoteAddress ?? '')}`,
    );
  }
}
