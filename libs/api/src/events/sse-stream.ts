import type { Request, Response } from 'express';
import { formatSse, sseComment, type SseMessage } from './sse-format';

/** How often an idle stream gets a comment line (proxies commonly cut idle connections at 30-60 s). */
export const KEEP_ALIVE_MS = 15_000;

export interface SseStreamOptions {
  /** The `retry:` hint sent first (ms). */
  retryMs?: number;
  /** Called on every keep-alive tick (e.g. to re-read state a lost event would have announced). */
  onTick?: () => void;
  keepAliveMs?: number;
}

/**
 * An open `text/event-stream` answer on Express's response. Writes nothing after the client left
 * or the stream ended; `closed` resolves once either happened, so the owner can drop listeners.
 */
export class SseStream {
  private ended = false;
  private readonly timer: NodeJS.Timeout;
  private readonly closeHandlers: (() => void)[] = [];
  private sequence = 0;

  constructor(
    req: Request,
    private readonly res: Response,
    opts: SseStreamOptions = {},
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    // nginx buffers proxied answers unless told not to; an event stream must flow.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    req.socket.setNoDelay(true);
    req.socket.setTimeout(0);
    if (opts.retryMs !== undefined) this.write(formatSse({ retry: opts.retryMs }));
    this.timer = setInterval(() => {
      this.write(sseComment('keep-alive'));
      opts.onTick?.();
    }, opts.keepAliveMs ?? KEEP_ALIVE_MS);
    this.timer.unref();
    res.on('close', () => this.finish());
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /** Sends one event with the next `id:` of this stream (1, 2, 3 …) unless it names its own. */
  send(msg: SseMessage): void {
    this.write(formatSse({ id: msg.id ?? ++this.sequence, ...msg }));
  }

  /** Ends the answer (the client sees the stream close). */
  end(): void {
    if (this.ended) return;
    this.res.end();
    this.finish();
  }

  onClose(handler: () => void): void {
    if (this.ended) handler();
    else this.closeHandlers.push(handler);
  }

  private write(chunk: string): void {
    if (!this.ended && !this.res.writableEnded) this.res.write(chunk);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    for (const h of this.closeHandlers.splice(0)) {
      try {
        h();
      } catch {
        /* a listener's cleanup must not stop the others */
      }
    }
  }
}
