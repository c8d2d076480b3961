import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drover } from '../testing/fake-io';
import { screen } from '../testing/screen';

const run = (status: string, extra: Record<string, unknown> = {}) => ({
  id: 'r1',
  status,
  attempt: 1,
  maxAttempts: 3,
  ...extra,
});
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * `runs watch` against a loopback server that answers the run's event stream from a script: one
 * list of events per connection, each connection closed after its events.
 */
async function streamServer(connections: string[][]): Promise<{ server: Server; url: string; opened: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    if (req.url !== '/api/v1/runs/r1/events') {
      res.writeHead(404).end();
      return;
    }
    const events = connections[Math.min(n++, connections.length - 1)]!;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`retry: 3000\n\n${events.join('')}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, opened: () => n };
}

describe('runs watch when the event stream drops', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it("opens the stream again after a close without `end`, and ends on the api's `end`", async () => {
    const s = await streamServer([
      [sse('status', run('running'))], // dropped: no `end`
      [sse('status', run('succeeded')), sse('end', { id: 'r1', status: 'succeeded' })],
    ]);
    server = s.server;
    const res = await drover(['runs', 'watch', 'r1', '--api-url', s.url]);
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    expect(s.opened()).toBe(2);
    expect(res.out).toMatch(/running {2}attempt 1\/3\n.*succeeded {2}attempt 1\/3\n/);
    expect(res.out).toMatch(/run r1 succeeded\n$/);
  });

  it('on a terminal, redraws status and progress in place: the screen ends with the final state once', async () => {
    const s = await streamServer([
      [
        sse('status', run('running', { worker: 'w1' })),
        sse('progress', { progress: { percent: 10 } }),
        sse('progress', { progress: { percent: 60 } }),
        sse('status', run('retrying', { error: { message: 'boom' } })),
        sse('status', run('running', { attempt: 2, worker: 'w1' })),
        sse('progress', { progress: { percent: 90 } }),
        sse('status', run('succeeded', { attempt: 2, worker: 'w1' })),
        sse('end', { id: 'r1', status: 'succeeded' }),
      ],
    ]);
    server = s.server;
    const res = await drover(['--no-color', 'runs', 'watch', 'r1', '--api-url', s.url], { isTty: true });
    expect(res.code).toBe(0);
    // Every state was drawn…
    expect(res.out).toContain('progress {"percent":60}');
    expect(res.out).toContain('retrying  attempt 1/3  boom');
    // …and the screen keeps only the last: no scroll of old states, no progress after the end.
    expect(screen(res.out)).toEqual(['00:00:00  succeeded  attempt 2/3  on w1', 'run r1 succeeded', '']);
  });

  it('exits 1 with the error when the run settles other than succeeded', async () => {
    const s = await streamServer([
      [sse('status', run('parked', { error: { message: 'boom' } })), sse('end', { id: 'r1', status: 'parked' })],
    ]);
    server = s.server;
    const res = await drover(['runs', 'watch', 'r1', '--api-url', s.url]);
    expect(res.code).toBe(1);
    expect(res.out).toContain('parked  attempt 1/3  boom');
    expect(res.err).toBe('drover: run r1 ended parked: boom\n');
  });

  it('gives up when every stream drops, saying so', async () => {
    const s = await streamServer([[sse('status', run('running'))]]);
    server = s.server;
    const res = await drover(['runs', 'watch', 'r1', '--api-url', s.url, '--timeout', '2500ms']);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/^drover: run r1 is still running after 2s \(--timeout\)/);
    expect(s.opened()).toBeGreaterThanOrEqual(2);
  });
});
