import { Inject, Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, normalizeIp, type ThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import { ProblemError } from '../http/problem';

/** Refused unauthenticated requests one client address may make per minute (0: no limit). */
export const REFUSAL_LIMIT = Symbol('drover.refusal-limit');

const WINDOW_MS = 60_000;

/**
 * Counts, per client address, the requests refused before anybody was authenticated (no or an
 * invalid token, an expired session, a failed login), in @nestjs/throttler's storage. Past the
 * limit, such a request is answered 429 with Retry-After before it is audited or logged: a
 * flood of anonymous writes costs a hash compare each, and never reaches Redis.
 *
 * Only refusals are counted, after authentication, so a valid caller sharing the address (a NAT,
 * an ingress without trust-proxy) is never throttled by them.
 */
@Injectable()
export class RefusalThrottle {
  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    @Inject(REFUSAL_LIMIT) private readonly limit: number,
  ) {}

  /** Counts one refusal of `req`; throws a 429 ProblemError when its address is over the limit. */
  async refused(req: Request): Promise<void> {
    if (this.limit <= 0) return;
    const address = normalizeIp(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    const hit = await this.storage.increment(`refused:${address}`, WINDOW_MS, this.limit, WINDOW_MS, 'refusals');
    if (!hit.isBlocked) return;
    throw new ProblemError(
      429,
      `too many unauthenticated requests from ${address}; send a valid token, or retry in ${hit.timeToBlockExpire} s`,
      undefined,
      { 'Retry-After': String(Math.max(1, hit.timeToBlockExpire)) },
    );
  }
}
