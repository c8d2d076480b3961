import type { FetchAnswer, FetchInit } from '@drover/api-client';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Readable } from 'node:stream';

/** undici's (Node's fetch) default connect timeout: how long an unanswered SYN may hang the CLI. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** undici's default headers and body timeouts: an open connection silent for this long is dead. */
export const IDLE_TIMEOUT_MS = 300_000;

export interface NodeFetchTimeouts {
  connectMs?: number;
  idleMs?: number;
}

/** A network error with the errno-like code `explain` names (`timed out`). */
const timedOut = (what: string) => Object.assign(new Error(`${what} timed out`), { code: 'ETIMEDOUT' });

/**
 * The CLI's HTTP transport, a {@link FetchLike} on node:http and node:https. Node's own `fetch`
 * is undici, which a fresh process loads on its first request: 40–65 ms of every `drover` command
 * against ~10 ms for node:http. Same behaviour where users see it: TLS with Node's CAs
 * (NODE_EXTRA_CA_CERTS too), no proxy (Node's fetch reads no HTTP_PROXY either), undici's
 * timeouts, and failures reported as fetch reports them (`TypeError('fetch failed')` with the
 * network error as `cause`), so the CLI's messages stay the same. No redirects: the api answers
 * none.
 */
export function nodeFetch(url: string, init: FetchInit = {}, timeouts: NodeFetchTimeouts = {}): Promise<FetchAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const options: RequestOptions = {
      method: init.method ?? 'GET',
      headers: {
        ...init.headers,
        ...(init.body !== undefined && { 'content-length': String(Buffer.byteLength(init.body)) }),
      },
      timeout: timeouts.idleMs ?? IDLE_TIMEOUT_MS,
      ...(init.signal && { signal: init.signal }),
    };
    let req: ClientRequest;
    if (target.protocol === 'https:') {
      // Only an https URL pays for loading TLS.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      req = (require('node:https') as typeof import('node:https')).request(target, options);
    } else {
      req = httpRequest(target, options);
    }
    const connectTimer = setTimeout(() => req.destroy(timedOut('connect')), timeouts.connectMs ?? CONNECT_TIMEOUT_MS);
    req.once('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => clearTimeout(connectTimer));
      else clearTimeout(connectTimer);
    });
    req.on('timeout', () => req.destroy(timedOut('the answer')));
    req.on('error', (err) => {
      clearTimeout(connectTimer);
      // An abort rejects with the abort, as fetch's does; everything else is a network failure.
      reject(init.signal?.aborted ? err : new TypeError('fetch failed', { cause: err }));
    });
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      resolve(answer(res));
    });
    req.end(init.body);
  });
}

function answer(res: IncomingMessage): FetchAnswer {
  let body: ReadableStream<Uint8Array> | undefined;
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    headers: {
      get(name) {
        const value = res.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    text: () =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', (err) => reject(new TypeError('fetch failed', { cause: err })));
      }),
    // Made on first use: only event streams read the body as a stream.
    get body() {
      body ??= Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>;
      return body;
    },
  };
}
