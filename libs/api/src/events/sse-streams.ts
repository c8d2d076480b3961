import { Injectable, Logger, Optional, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppConfig, DEFAULT_STREAMS_MAX, DEFAULT_STREAMS_PER_TOKEN } from '@drover/config';
import { ApiAuth } from '../auth/api-auth.service';
import type { AuthenticatedRequest } from '../auth/principal';
import { ProblemError } from '../http/problem';
import { SseStream, type SseStreamOptions } from './sse-stream';

/** How often open streams re-check the session or token they were opened with. */
export const STREAM_RECHECK_MS = 5_000;

/** The Retry-After (s) of a refused stream: streams last long, so a retry soon is likely refused too. */
const RETRY_AFTER_S = 10;

interface OpenStream {
  stream: SseStream;
  req: Request & AuthenticatedRequest;
  /** The principal's name, counted against DROVER_API_STREAMS_PER_TOKEN. */
  owner: string;
}

/**
 * Every open event stream of this process. A stream holds a socket, a timer and listeners for as
 * long as its client stays, so there is a cap per token name and per process (429 beyond it).
 * Each stream lives only as long as the credentials that opened it: every STREAM_RECHECK_MS they
 * are re-checked against the current tokens and sessions, and a logout ends its session's streams
 * at once. An open stream would hold the HTTP server's close (and the shutdown) until the client
 * leaves, so shutdown ends them first; clients reconnect to another replica.
 */
@Injectable()
export class SseStreams implements BeforeApplicationShutdown {
  private readonly logger = new Logger('SseStreams');
  private readonly open = new Set<OpenStream>();
  private readonly perToken: number;
  private readonly max: number;
  private sweeper?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly auth: ApiAuth,
    @Optional() config?: AppConfig,
  ) {
    this.perToken = config?.env.apiStreamsPerToken ?? DEFAULT_STREAMS_PER_TOKEN;
    this.max = config?.env.apiStreamsMax ?? DEFAULT_STREAMS_MAX;
  }

  /**
   * Opens a stream on `res` for the authenticated `req`.
   * @throws ProblemError 429 (nothing written yet) when the token or the process is at its cap.
   */
  start(req: Request, res: Response, opts: SseStreamOptions = {}): SseStream {
    const authed = req as Request & AuthenticatedRequest;
    const owner = authed.principal?.name ?? 'anonymous';
    if (this.open.size >= this.max) {
      throw this.refusal(`this api process has ${this.max} open event streams (DROVER_API_STREAMS_MAX)`);
    }
    const mine = [...this.open].filter((s) => s.owner === owner).length;
    if (mine >= this.perToken) {
      throw this.refusal(
        `token "${owner}" has ${this.perToken} open event streams on this api process (DROVER_API_STREAMS_PER_TOKEN); close one`,
      );
    }
    const entry: OpenStream = { stream: new SseStream(req, res, opts), req: authed, owner };
    this.open.add(entry);
    entry.stream.onClose(() => this.open.delete(entry));
    this.sweeper ??= setInterval(() => void this.sweep(), STREAM_RECHECK_MS).unref();
    return entry.stream;
  }

  get count(): number {
    return this.open.size;
  }

  /** Ends the streams opened with console session `id` (it was logged out). */
  endSession(id: string): void {
    for (const s of [...this.open]) if (s.req.consoleSessionId === id) s.stream.end();
  }

  /** Ends every stream whose session or token is no longer valid (removed, replaced, expired, logged out). */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await Promise.all(
        [...this.open].map(async (s) => {
          if (!(await this.auth.stillValid(s.req)) && s.stream.isOpen) {
            this.logger.log(`ended an event stream of "${s.owner}": its session or token is no longer valid`);
            s.stream.end();
          }
        }),
      );
    } finally {
      this.sweeping = false;
    }
  }

  private refusal(detail: string): ProblemError {
    return new ProblemError(429, detail, undefined, { 'Retry-After': String(RETRY_AFTER_S) });
  }

  beforeApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const s of [...this.open]) s.stream.end();
  }
}
