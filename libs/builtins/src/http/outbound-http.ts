import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { addressProblem } from './address-policy';
import { guardedLookup, OutboundRefusedError, systemResolveAll, type ResolveAll } from './guarded-lookup';
import { bare, type UrlAllowlist } from './url-allowlist';

export interface OutboundRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Read at most this many bytes of the answer; the connection is closed once they are in. */
  maxBytes: number;
}

export interface OutboundResponse {
  status: number;
  body: Buffer;
  /** The answer had more than `maxBytes`: the rest was never read. */
  truncated: boolean;
}

/**
 * How long a connection may wait idle for the next request before it is closed: under the 5 s
 * Node's own servers wait, so a reused connection is seldom one its server is closing.
 */
export const IDLE_CONNECTION_MS = 4_000;

/**
 * The one way `http.request`, `http.candidates` and the `http` condition call out (docs/security.md,
 * "Outbound HTTP"): the URL must pass the allow-list; an address host is checked as written and a
 * host name at connect time by {@link guardedLookup}; redirects are answers, never followed
 * (node:http follows none); the body is read up to `maxBytes` and then the connection is dropped.
 * Its own agents, not the global ones, so no connection made without the guard is ever reused.
 * Connections are kept for the next request to the same scheme, host and port: which addresses a
 * host may reach depends on the host alone, so a reused connection goes to an address checked by
 * the same rules when it was made, and every new connection resolves and checks again. A routine
 * firing every second then costs one connection, not one per run (and one TLS handshake).
 * Refusals throw {@link OutboundRefusedError}.
 */
export class OutboundHttp {
  private readonly agents = {
    'http:': new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
    'https:': new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  };

  constructor(
    readonly allowlist: UrlAllowlist,
    private readonly resolveAll: ResolveAll = systemResolveAll,
  ) {}

  request(req: OutboundRequest): Promise<OutboundResponse> {
    const { url } = req;
    const decision = this.allowlist.check(url);
    if (!decision.allowed) return Promise.reject(new OutboundRefusedError(decision.reason));
    const refusal = (problem: string) => `${url.origin}${url.pathname} is not allowed: ${problem}`;
    const host = bare(url.hostname);
    if (isIP(host)) {
      const problem = addressProblem(decision.naming, host);
      if (problem) return Promise.reject(new OutboundRefusedError(refusal(problem)));
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    const attempt = (kept: boolean) =>
      new Promise<OutboundResponse>((resolve, reject) => {
        let answered = false;
        const outgoing = send(
          {
            protocol: url.protocol,
            host,
            port: url.port || undefined,
            path: `${url.pathname}${url.search}`,
            method: req.method,
            headers: { ...req.headers, ...(body && { 'content-length': String(body.byteLength) }) },
            // `false`: a connection of its own, closed after this request.
            agent: kept ? this.agents[url.protocol as 'http:' | 'https:'] : false,
            lookup: guardedLookup(decision.naming, this.resolveAll, refusal),
            signal: req.signal,
          },
          (res) => {
            answered = true;
            readCapped(res, req.maxBytes, req.signal).then(resolve, reject);
          },
        );
        outgoing.on('error', (err: NodeJS.ErrnoException) => {
          // A kept connection its server closed while idle, just as this request went out: the
          // server never answered it, so it is sent once more, on a new connection.
          if (
            kept &&
            outgoing.reusedSocket &&
            !answered &&
            !req.signal.aborted &&
            CLOSED_UNDER_US.has(err.code ?? '')
          ) {
            attempt(false).then(resolve, reject);
          } else reject(err);
        });
        outgoing.end(body);
      });
    return attempt(true);
  }
}

/** How a connection closed by its server shows to the request written on it. */
const CLOSED_UNDER_US = new Set(['ECONNRESET', 'EPIPE']);

function readCapped(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (truncated: boolean) => {
      signal.removeEventListener('abort', onAbort);
      resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, maxBytes), truncated });
    };
    const onAbort = () => res.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size > maxBytes) {
        // Stop here: the rest of the answer is never read, whatever its size.
        res.removeAllListeners('data');
        res.destroy();
        done(true);
      }
    });
    res.on('end', () => done(false));
    res.on('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    res.on('close', () => {
      if (!res.complete && size <= maxBytes) {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? (signal.reason as Error) : new Error('the connection closed before the answer ended'));
      }
    });
  });
}
