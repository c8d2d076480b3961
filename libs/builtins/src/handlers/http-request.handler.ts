import { AppConfig } from '@drover/config';
import { httpRequestJob } from '@drover/core';
import {
  JobHandler,
  PermanentError,
  type JobContext,
  type JobHandlerInterface,
  type PayloadOf,
} from '@drover/worker-runtime';
import { requestHeaders } from './http-headers';
import { OutboundRefusedError } from '../http/guarded-lookup';
import { OutboundHttp, type OutboundResponse } from '../http/outbound-http';
import { UrlAllowlist } from '../http/url-allowlist';

export type HttpRequestPayload = PayloadOf<typeof httpRequestJob>;
export interface HttpRequestResult {
  status: number;
  /** The start of the answer's body (small: it is stored on the run). */
  body: string;
}

/** Keep at most this much of an answer's body (read) and this much of it on the run (stored). */
const MAX_READ_BYTES = 64 * 1024;
const MAX_STORED_CHARS = 2048;

/**
 * Calls a URL. Every request carries X-Drover-Run-Id, -Routine, -Scheduled-For (ISO 8601; the slot,
 * or the enqueue time of an ad-hoc run: the same on every attempt) and -Attempt (1-based, counting
 * an attempt lost to an expired lease), so the receiver can deduplicate; they replace a payload
 * header of the same name in any case (see requestHeaders). The call goes through
 * {@link OutboundHttp}: a URL or address the allow-list refuses parks the run at once (a retry
 * would be refused the same way). A non-2xx answer fails the attempt — a redirect too: it is never
 * followed, so the allow-list cannot be walked around.
 */
@JobHandler(httpRequestJob)
export class HttpRequestHandler implements JobHandlerInterface<HttpRequestPayload, HttpRequestResult> {
  private readonly http: OutboundHttp;

  constructor(config: AppConfig) {
    this.http = new OutboundHttp(new UrlAllowlist(config.env.httpAllow));
  }

  async handle(p: HttpRequestPayload, ctx: JobContext): Promise<HttpRequestResult> {
    const url = new URL(p.url);
    const { run } = ctx;
    let body: string | undefined;
    if (p.body !== undefined && p.method !== 'GET' && p.method !== 'HEAD') {
      body = typeof p.body === 'string' ? p.body : JSON.stringify(p.body);
    }
    const headers = requestHeaders(
      p.headers,
      {
        runId: run.id,
        routine: run.routine ?? '',
        scheduledFor: new Date(run.scheduledFor ?? run.createdAt).toISOString(),
        attempt: run.attempt,
        ...(p.key !== undefined && { key: p.key }),
      },
      body === undefined ? undefined : typeof p.body === 'string' ? 'text/plain;charset=UTF-8' : 'application/json',
    );
    const timeout = p.timeoutMs ? AbortSignal.timeout(p.timeoutMs) : undefined;
    const signal = timeout ? AbortSignal.any([ctx.signal, timeout]) : ctx.signal;
    let res: OutboundResponse;
    try {
      res = await this.http.request({ url, method: p.method, headers, body, signal, maxBytes: MAX_READ_BYTES });
    } catch (err) {
      if (err instanceof OutboundRefusedError) throw new PermanentError(err.message);
      if (ctx.signal.aborted) throw err;
      if (timeout?.aborted) {
        throw new Error(`${p.method} ${url.href} timed out after ${p.timeoutMs} ms`, { cause: err });
      }
      throw new Error(`${p.method} ${url.href} failed: ${(err as Error).message}`, { cause: err });
    }
    const text = res.body.toString('utf8');
    if (res.status < 200 || res.status > 299) {
      const redirect = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : '';
      throw new Error(`${p.method} ${url.href} answered ${res.status}${redirect}: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body: text.slice(0, MAX_STORED_CHARS) };
  }
}
