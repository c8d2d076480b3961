import { SseParser, type SseEvent } from '@drover/api-client';
import type { ApiCluster, CallOptions } from './api-cluster';

export { SseParser, type SseEvent };

/** An open event stream of the api, read in the background. */
export class SseConnection {
  readonly events: SseEvent[] = [];
  readonly parser = new SseParser();
  /** Resolves when the server closed the stream (not when we did). */
  readonly ended: Promise<void>;
  private endedFlag = false;
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    private readonly body: ReadableStream<Uint8Array>,
    private readonly abort: AbortController,
  ) {
    this.ended = this.pump();
  }

  /**
   * Opens `path` (under /api/v1) as `as`. Resolves once the answer's headers arrived: for the
   * api's streams, that is after the stream listens, so what happens next reaches it.
   * A non-200 answer is returned as `{status, problem}` instead.
   */
  static async open(
    api: ApiCluster,
    path: string,
    as: CallOptions['as'] = 'viewer',
    headers: Record<string, string> = {},
  ): Promise<SseConnection | { status: number; headers: Headers; problem: unknown; text: string }> {
    const abort = new AbortController();
    const res = await fetch(`${api.url}${path}`, {
      headers: { ...api.authHeader(as), accept: 'text/event-stream', ...headers },
      signal: abort.signal,
    });
    if (res.status !== 200 || !res.body) {
      const text = await res.text();
      return { status: res.status, headers: res.headers, problem: text ? JSON.parse(text) : undefined, text };
    }
    return new SseConnection(res.status, res.headers, res.body, abort);
  }

  get isEnded(): boolean {
    return this.endedFlag;
  }

  private async pump(): Promise<void> {
    const reader = this.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.events.push(...this.parser.feed(decoder.decode(value, { stream: true })));
        this.waiters.forEach((w) => w());
      }
    } catch {
      /* aborted by close() */
    } finally {
      this.endedFlag = true;
      this.waiters.forEach((w) => w());
    }
  }

  /** The first event (seen so far or to come) that `match` accepts. */
  waitFor(what: string, match: (e: SseEvent) => boolean, timeoutMs = 20_000): Promise<SseEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.events.find(match);
        if (hit) {
          done();
          resolve(hit);
        } else if (this.endedFlag) {
          done();
          reject(new Error(`stream ended before ${what}; got ${JSON.stringify(this.events)}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got ${JSON.stringify(this.events)}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Resolves when the server ends the stream, or rejects after `timeoutMs`. */
  async waitForEnd(timeoutMs = 20_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.ended,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`stream still open after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  /** Events of one type with their data parsed as JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read event data field by field
  json<T = any>(event?: string): T[] {
    return this.events.filter((e) => event === undefined || e.event === event).map((e) => JSON.parse(e.data) as T);
  }

  close(): void {
    this.abort.abort();
  }
}

/** Narrows what {@link SseConnection.open} returned to an open stream, failing the test otherwise. */
export function expectStream(x: Awaited<ReturnType<typeof SseConnection.open>>): SseConnection {
  if (!(x instanceof SseConnection)) throw new Error(`expected an event stream, got ${x.status}: ${x.text}`);
  return x;
}
