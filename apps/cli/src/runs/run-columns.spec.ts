import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drover } from '../testing/fake-io';

const base = {
  id: 'r1',
  routine: null,
  jobType: 'exports.run',
  queue: 'exports',
  source: 'api',
  scheduledFor: null,
  status: 'queued',
  attempt: 0,
  maxAttempts: 3,
  priority: 0,
  payload: { tenant: 'acme' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('runs get: a run of a queue that limits runs per key', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function answering(run: object): Promise<string> {
    server = createServer((req, res) => {
      if (req.url !== '/api/v1/runs/r1') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(run));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('shows its key, and that it waits for a place while held', async () => {
    const url = await answering({ ...base, concurrencyKey: 'acme', waitingForKey: true });
    const res = await drover(['runs', 'get', 'r1', '--api-url', url]);
    expect(res.err).toBe('');
    expect(res.out).toMatch(/concurrency key\s+acme \(waiting for a place\)/);
  });

  it('shows no key line for a run without one', async () => {
    const url = await answering(base);
    const res = await drover(['runs', 'get', 'r1', '--api-url', url]);
    expect(res.out).not.toContain('concurrency key');
  });
});
