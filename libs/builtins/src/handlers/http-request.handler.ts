import { z } from 'zod';
import { AppConfig } from '@drover/config';
import {
  defineJob,
  JobHandler,
  PermanentError,
  type JobContext,
  type JobHandlerInterface,
  type PayloadOf,
} from '@drover/worker-runtime';
import { payloadHeadersSchema, requestHeaders } from './http-headers';
import { UrlAllowlist } from '../http/url-allowlist';

export const httpRequestJob = defineJob('http.request', {
  payload: z.strictObject({
    url: z.url({ protocol: /^https?$/ }),
    method: z
      .preprocess(
        (m) => (typeof m === 'string' ? m.toUpperCase() : m),
        z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']),
      )
      .default('GET'),
    headers: payloadHeadersSchema.default({}),
    /** A string is sent as is; anything else as JSON. */
    body: z.unknown().optional(),
    timeoutMs: z.number().int().positive().max(3_600_000).optional(),
    /** Set by a selector routine: the candidate key this run serves, sent as X-Drover-Key. */
    key: z.string().max(512).optional(),
  }),
});

export type HttpRequestPayload = PayloadOf<typeof httpRequestJob>;
export interface HttpRequestResult {
  status: number;
  /** The start of the answer's body (small: it is stored on the run). */
  body: string;
}

/** Keep at most this much of an answer's body (read) and this much of it on the run (stored). */
const MAX_READ_BYTES = 64 * 1024;
const MAX_STORED_CHARS = 2048;

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= MAX_READ_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Calls a URL. Every request carries X-Drover-Run-Id, -Routine, -Scheduled-For (ISO 8601; the slot,
 * or the enqueue time of an ad-hoc run: the same on every attempt) and -Attempt (1-based, counting
 * an attempt lost to an expired lease), so the receiver can deduplicate; they replace a payload
 * header of the same name in any case (see requestHeaders). A non-2xx answer (also a redirect:
 * they are not followed, so the allowlist cannot be walked around) fails the attempt.
 */
@JobHandler(httpRequestJob)
export class HttpRequestHandler implements JobHandlerInterface<HttpRequestPayload, HttpRequestResult> {
  private readonly allowlist: UrlAllowlist;

  constructor(config: AppConfig) {
    this.allowlist = new UrlAllowlist(config.env.httpAllow);
  }

  async handle(p: HttpRequestPayload, ctx: JobContext): Promise<HttpRequestResult> {
    const url = new URL(p.url);
    if (!this.allowlist.allows(url)) {
      throw new PermanentError(`${url.origin}${url.pathname} is not allowed: ${this.allowlist.describe()}`);
    }
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
      body !== undefined && typeof p.body !== 'string' ? 'application/json' : undefined,
    );
    const signal = p.timeoutMs ? AbortSignal.any([ctx.signal, AbortSignal.timeout(p.timeoutMs)]) : ctx.signal;
    let res: Response;
    try {
      res = await fetch(url, { method: p.method, headers, body, signal, redirect: 'manual' });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if ((err as Error).name === 'TimeoutError') {
        throw new Error(`${p.method} ${url.href} timed out after ${p.timeoutMs} ms`, { cause: err });
      }
      throw new Error(`${p.method} ${url.href} failed: ${(err as Error).message}${causeOf(err)}`, { cause: err });
    }
    const text = await readCapped(res);
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${p.method} ${url.href} answered ${res.status}: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body: text.slice(0, MAX_STORED_CHARS) };
  }
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { message?: string } }).cause;
  return cause?.message ? ` (${cause.message})` : '';
}
