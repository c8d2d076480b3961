import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the oracle saw, with Drover's deduplication headers decoded. */
export interface OracleHit {
  path: string;
  runId: string;
  routine: string;
  scheduledFor: string;
  attempt: number;
  /** X-Drover-Key: the candidate key a selector routine's run serves ('' for none). */
  key: string;
  receivedAt: number;
  body: string;
}

/** A custom answer for a request (e.g. a candidate list); undefined falls back to the default. */
export type OracleAnswer = (path: string) => { status?: number; json: unknown } | undefined;

export interface HttpOracle {
  url: string;
  hits: OracleHit[];
  /** Most requests being answered at one time so far (for concurrency ceilings). */
  maxInFlight(): number;
  /** Resolves once `predicate` holds for the hits seen so far (checked on every hit). */
  waitFor(what: string, predicate: (hits: OracleHit[]) => boolean, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 that records what `http.request` runs send it — the test's record
 * of what really happened, kept outside Redis. `?delayMs=N` holds the answer, `?status=N` sets it;
 * `answer` may serve JSON for some paths instead (those requests are not recorded as hits).
 */
export async function startHttpOracle(opts: { answer?: OracleAnswer } = {}): Promise<HttpOracle> {
  const hits: OracleHit[] = [];
  const waiters = new Set<() => void>();
  let inFlight = 0;
  let maxInFlight = 0;
  const header = (req: IncomingMessage, name: string) => String(req.headers[name] ?? '');
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      const custom = opts.answer?.(u.pathname);
      if (custom) {
        res.statusCode = custom.status ?? 200;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(custom.json));
        return;
      }
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      hits.push({
        path: u.pathname,
        runId: header(req, 'x-drover-run-id'),
        routine: header(req, 'x-drover-routine'),
        scheduledFor: header(req, 'x-drover-scheduled-for'),
        attempt: Number(header(req, 'x-drover-attempt') || 0),
        key: header(req, 'x-drover-key'),
        receivedAt: Date.now(),
        body,
      });
      waiters.forEach((w) => w());
      const delay = Number(u.searchParams.get('delayMs') ?? 0);
      const status = Number(u.searchParams.get('status') ?? 200);
      const timer = setTimeout(() => {
        inFlight--;
        res.statusCode = status;
        res.end('ok');
      }, delay);
      res.on('close', () => {
        if (!res.writableEnded) {
          clearTimeout(timer);
          inFlight--;
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    maxInFlight: () => maxInFlight,
    waitFor: (what, predicate, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(hits)) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`oracle: timed out after ${timeoutMs} ms waiting for ${what} (${hits.length} hits)`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
