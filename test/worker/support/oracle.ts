import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/** One call the oracle received, with the Drover headers a receiver deduplicates on. */
export interface OracleCall {
  path: string;
  method: string;
  runId: string;
  routine: string;
  scheduledFor: string;
  attempt: number;
  body: string;
  /** Every header as received, by lower-case name, one entry per value (a header sent twice has two). */
  headers: NodeJS.Dict<string[]>;
  at: number;
  /** When the oracle answered; unset while in flight. */
  answeredAt?: number;
  /** When the caller hung up before the answer (timeout, cancel, a killed worker). */
  abortedAt?: number;
}

/**
 * How to answer a call: status, extra headers (e.g. a redirect's `location`) and how long to hold it
 * first. `hold: 'forever'` waits for the caller to hang up.
 */
export type Answer = { status: number; holdMs?: number; headers?: Record<string, string> } | { hold: 'forever' };

/**
 * An HTTP receiver on 127.0.0.1 for `http.request` runs: records every call, counts calls in
 * flight (and the most ever in flight), notices callers hanging up, and lets a test wait for a
 * condition on these records — re-checked on every change, never by polling.
 */
export class Oracle extends EventEmitter {
  readonly calls: OracleCall[] = [];
  inFlight = 0;
  maxInFlight = 0;
  answer: (call: OracleCall, calls: OracleCall[]) => Answer = () => ({ status: 200 });
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const call = this.record(req, Buffer.concat(chunks).toString('utf8'));
        const answer = this.answer(call, this.calls);
        let timer: NodeJS.Timeout | undefined;
        const finish = (status: number, headers: Record<string, string> = {}) => {
          if (call.answeredAt || call.abortedAt) return;
          call.answeredAt = Date.now();
          this.inFlight--;
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ status }));
          this.emit('change');
        };
        res.on('close', () => {
          clearTimeout(timer);
          if (call.answeredAt || call.abortedAt) return;
          call.abortedAt = Date.now();
          this.inFlight--;
          this.emit('change');
        });
        if ('hold' in answer) return;
        if (answer.holdMs) timer = setTimeout(() => finish(answer.status, answer.headers), answer.holdMs);
        else finish(answer.status, answer.headers);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    return this;
  }

  private record(req: IncomingMessage, body: string): OracleCall {
    const h = (name: string) => String(req.headers[name] ?? '');
    const call: OracleCall = {
      path: req.url ?? '',
      method: req.method ?? '',
      runId: h('x-drover-run-id'),
      routine: h('x-drover-routine'),
      scheduledFor: h('x-drover-scheduled-for'),
      attempt: Number(h('x-drover-attempt')),
      body,
      headers: req.headersDistinct,
      at: Date.now(),
    };
    this.calls.push(call);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.emit('change');
    return call;
  }

  callsOf(runId: string): OracleCall[] {
    return this.calls.filter((c) => c.runId === runId);
  }

  /** Resolves once `check()` holds (checked now and on every change); rejects after `timeoutMs`. */
  until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const onChange = () => {
        if (!check()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `oracle: timed out after ${timeoutMs} ms waiting for ${what}; calls: ${JSON.stringify(this.calls)}`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off('change', onChange);
      };
      this.on('change', onChange);
      onChange();
    });
  }

  /** True if `check()` becomes true within `windowMs` (used to show that nothing happens). */
  async happensWithin(check: () => boolean, windowMs: number): Promise<boolean> {
    try {
      await this.until('an event', check, windowMs);
      return true;
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
