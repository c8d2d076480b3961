import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SseStream, type SseStreamOptions } from './sse-stream';

/**
 * Every open event stream of this process. An open stream would hold the HTTP server's close
 * (and the shutdown) until the client leaves, so shutdown ends them first; clients reconnect to
 * another replica.
 */
@Injectable()
export class SseStreams implements BeforeApplicationShutdown {
  private readonly open = new Set<SseStream>();

  start(req: Request, res: Response, opts: SseStreamOptions = {}): SseStream {
    const stream = new SseStream(req, res, opts);
    this.open.add(stream);
    stream.onClose(() => this.open.delete(stream));
    return stream;
  }

  get count(): number {
    return this.open.size;
  }

  beforeApplicationShutdown(): void {
    for (const s of [...this.open]) s.end();
  }
}
