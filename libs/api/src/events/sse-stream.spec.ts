import type { AddressInfo } from 'node:net';
import { get, type Server } from 'node:http';
import express from 'express';
import { SseStream } from './sse-stream';

/** A real HTTP server whose one route opens an SseStream, so the test sees what a client sees. */
async function serve(onStream: (s: SseStream) => void, keepAliveMs: number): Promise<{ url: string; server: Server }> {
  const app = express();
  app.get('/stream', (req, res) => onStream(new SseStream(req, res, { retryMs: 1500, keepAliveMs })));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`, server };
}

async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!done(text)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

describe('SseStream over a real HTTP connection', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('answers text/event-stream with the retry hint, numbered events and keep-alive comments', async () => {
    const started = await serve((s) => {
      s.send({ event: 'status', data: { a: 1 } });
      s.send({ event: 'status', data: { a: 2 } });
    }, 20);
    server = started.server;
    const abort = new AbortController();
    const res = await fetch(started.url, { signal: abort.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    const text = await readUntil(res.body!, (t) => t.includes(': keep-alive'));
    abort.abort();
    expect(text).toMatch(
      /^retry: 1500\n\nid: 1\nevent: status\ndata: \{"a":1\}\n\nid: 2\nevent: status\ndata: \{"a":2\}\n\n/,
    );
  });

  it('tells its owner when the client goes away, and then writes nothing more', async () => {
    let stream: SseStream | undefined;
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const started = await serve((s) => {
      stream = s;
      s.onClose(closed);
    }, 60_000);
    server = started.server;
    // node:http, not fetch: fetch's pool may hold a canceled connection open for seconds.
    await new Promise<void>((resolve) => {
      const req = get(started.url, (res) => res.once('data', () => (req.destroy(), resolve())));
    });
    await gone;
    expect(stream!.isOpen).toBe(false);
    expect(() => stream!.send({ event: 'late', data: 1 })).not.toThrow();
  });

  it('ends the answer when the owner ends it, calling close handlers once', async () => {
    const calls: string[] = [];
    const started = await serve((s) => {
      s.onClose(() => calls.push('closed'));
      s.send({ event: 'end', data: {} });
      s.end();
      s.end();
      s.onClose(() => calls.push('late listener'));
    }, 60_000);
    server = started.server;
    const text = await (await fetch(started.url)).text();
    expect(text).toBe('retry: 1500\n\nid: 1\nevent: end\ndata: {}\n\n');
    expect(calls).toEqual(['closed', 'late listener']);
  });
});
