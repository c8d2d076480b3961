import { createFinalURL, createQuerySerializer, defaultPathSerializer } from 'openapi-fetch';
import { DroverApiError } from './api-error';
import type { DroverApiClient } from './client';
import type { FetchAnswer, FetchLike } from './fetch-like';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The typed calls of a {@link DroverApiClient}, same paths, options and answers; `response` is the
 * transport's {@link FetchAnswer} (status, headers, text), not a `Response`.
 */
export type DroverApiCalls = Pick<DroverApiClient, Method>;

export interface DroverApiCallsOptions {
  /** As for createDroverApiClient. */
  baseUrl: string;
  token?: string;
  fetch: FetchLike;
}

/** What the typed signatures let a caller pass (openapi-fetch's names). */
interface CallInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  body?: unknown;
  bodySerializer?: (body: unknown) => string;
  headers?: Record<string, string | number | boolean | null | undefined>;
  signal?: AbortSignal;
}

/**
 * The typed client over any {@link FetchLike} transport. openapi-fetch builds a `Request` and a
 * `Headers` for every call, which loads undici in Node; this builds plain strings with openapi-fetch's
 * own URL and query serializers (so URLs are the same) and answers as its client with the
 * {@link createDroverApiClient} middleware does: `{data, response}` for a 2xx (data undefined
 * for an empty body), a {@link DroverApiError} for anything else.
 */
export function createDroverApiCalls(options: DroverApiCallsOptions): DroverApiCalls {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const querySerializer = createQuerySerializer();
  const call = async (method: Method, path: string, init: CallInit = {}) => {
    const params = init.params ?? {};
    const url = createFinalURL(path, { baseUrl, params, querySerializer, pathSerializer: defaultPathSerializer });
    const body = init.body === undefined ? undefined : (init.bodySerializer ?? JSON.stringify)(init.body);
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    for (const [name, value] of Object.entries({ ...params.header, ...init.headers })) {
      if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const response = await options.fetch(url, {
      method,
      headers,
      ...(body !== undefined && { body }),
      ...(init.signal && { signal: init.signal }),
    });
    const request = `${method} ${new URL(url).pathname}`;
    const text = await response.text();
    if (response.status >= 400) throw DroverApiError.fromAnswer(request, response.status, response.statusText, text);
    return { data: parseData(request, response, text), response };
  };
  const calls = {
    GET: (path: string, init?: CallInit) => call('GET', path, init),
    POST: (path: string, init?: CallInit) => call('POST', path, init),
    PUT: (path: string, init?: CallInit) => call('PUT', path, init),
    PATCH: (path: string, init?: CallInit) => call('PATCH', path, init),
    DELETE: (path: string, init?: CallInit) => call('DELETE', path, init),
  };
  // The typed signatures are openapi-fetch's; the calls above take and answer what they promise.
  return calls as unknown as DroverApiCalls;
}

/** The JSON of a 2xx answer; a clear error when something in between answered with a page instead. */
function parseData(request: string, response: FetchAnswer, text: string): unknown {
  if (response.status === 204 || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const type = response.headers.get('content-type') ?? 'no content type';
    throw new Error(`${request}: ${response.status} answer is not JSON (${type}): ${text.trim().slice(0, 80)}`);
  }
}
