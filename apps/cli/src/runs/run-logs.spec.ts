import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drover } from '../testing/fake-io';

const sse = (event: string, data: unknown, id?: number) =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const line = (seq: number, message: string, extra: Record<string, unknown> = {}) => ({
  seq,
  at: '2026-11-26T08:00:00.000Z',
  message,
  ...extra,
});

/** A loopback api: the page route answers `page`; the stream answers one scripted list per connection. */
async function logServer(page: unknown, connections: string[][] = []) {
  const asked: string[] = [];
  let n = 0;
  const server = createServer((req, res) => {
    asked.push(req.url!);
    if (req.url!.startsWith('/api/v1/runs/r1/logs/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`retry: 3000\n\n${connections[Math.min(n++, connections.length - 1)]!.join('')}`);
    } else if (req.url!.startsWith('/api/v1/runs/r1/logs')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

describe('runs logs', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('prints the kept lines with their time and fields, escaping what a handler wrote, and says what is gone', async () => {
    const lines = [line(4, 'fetched', { fields: { rows: 2 } }), line(5, 'evil \u001b[2Jclear\nforged')];
    const s = await logServer({ lines, next: 6, dropped: 3 });
    server = s.server;
    const res = await drover(['runs', 'logs', 'r1', '--api-url', s.url]);
    expect(res.code).toBe(0);
    expect(res.out).toBe(
      '2026-11-26 08:00:00 UTC  fetched  {"rows":2}\n2026-11-26 08:00:00 UTC  evil \\x1b[2Jclear\\nforged\n',
    );
    expect(res.err).toContain("(3 earlier line(s) no longer kept: the queue's retention.logLines)");
    expect(s.asked).toEqual(['/api/v1/runs/r1/logs?from=1&limit=1000']);

    const json = await drover(['runs', 'logs', 'r1', '--api-url', s.url, '-o', 'json']);
    expect(JSON.parse(json.out)).toEqual(lines);
  });

  it('--follow prints lines as they come, reopens a dropped stream after the last line, and ends on `end`', async () => {
    const s = await logServer({}, [
      [sse('line', line(1, 'one'), 1), sse('line', line(2, 'two'), 2)], // dropped: no `end`
      [sse('line', line(3, 'three'), 3), sse('end', { id: 'r1', next: 4 })],
    ]);
    server = s.server;
    const res = await drover(['runs', 'logs', 'r1', '--follow', '--api-url', s.url]);
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    expect(
      res.out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('  ')[1]),
    ).toEqual(['one', 'two', 'three']);
    expect(s.asked).toEqual(['/api/v1/runs/r1/logs/stream?from=1', '/api/v1/runs/r1/logs/stream?from=3']);
  });
});
