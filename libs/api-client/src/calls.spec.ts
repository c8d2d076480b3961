import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDroverApiCalls, createDroverApiClient, DroverApiError, ok, type FetchLike } from './index';

interface Seen {
  method?: string;
  url?: string;
  auth?: string;
  type?: string;
  body: string;
}

/** A real loopback server that records what reached it and answers per path. */
function recordingApi(seen: Seen[], answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({
          method: req.method,
          url: req.url,
          auth: req.headers.authorization,
          type: req.headers['content-type'],
          body,
        });
        answer(req, res);
      });
    }).listen(0, '127.0.0.1', () => resolve(server));
  });
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '';
  if (url.startsWith('/empty')) return void res.writeHead(204).end();
  if (url.startsWith('/api/v1/routines/nightly/pause')) {
    res.writeHead(404, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ type: 'urn:x', title: 'Not found', status: 404, detail: 'no nightly', code: 'x' }));
    return;
  }
  if (url.startsWith('/api/v1/cluster')) {
    // Something in between (a login page, a captive portal) answered instead of the api.
    res.writeHead(200, { 'content-type': 'text/html' });
    return void res.end('<html>please log in</html>');
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ items: [], next_page_token: null }));
}

describe('createDroverApiCalls', () => {
  const seen: Seen[] = [];
  let server: Server;
  let baseUrl: string;
  // Node's fetch is a FetchLike too: the calls work over it as over the CLI's node:http transport.
  const transport: FetchLike = (url, init) => fetch(url, init);

  beforeAll(async () => {
    server = await recordingApi(seen, answer);
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('puts on the wire exactly what the openapi-fetch client does for the same typed calls', async () => {
    const client = createDroverApiClient({ baseUrl, token: 't0k' });
    const calls = createDroverApiCalls({ baseUrl, token: 't0k', fetch: transport });
    const query = { status: 'parked' as const, since: '2026-01-01T00:00:00Z', search: 'a b&c', page_size: 5 };
    const pairs: [() => Promise<unknown>, () => Promise<unknown>][] = [
      [() => client.GET('/api/v1/runs', { params: { query } }), () => calls.GET('/api/v1/runs', { params: { query } })],
      [
        () => client.GET('/api/v1/routines/{name}/slots', { params: { path: { name: 'a/b c' }, query: {} } }),
        () => calls.GET('/api/v1/routines/{name}/slots', { params: { path: { name: 'a/b c' }, query: {} } }),
      ],
      [
        () => client.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: 'r1' } }, body: { reason: 'x' } }),
        () => calls.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: 'r1' } }, body: { reason: 'x' } }),
      ],
      [
        () => client.DELETE('/api/v1/routines/{name}', { params: { path: { name: 'n' } } }),
        () => calls.DELETE('/api/v1/routines/{name}', { params: { path: { name: 'n' } } }),
      ],
    ];
    for (const [viaClient, viaCalls] of pairs) {
      await viaClient();
      const expected = seen.at(-1);
      await viaCalls();
      expect(seen.at(-1)).toEqual(expected);
    }
    expect(seen.at(0)).toMatchObject({ auth: 'Bearer t0k', url: expect.stringContaining('search=a%20b%26c') });
    expect(seen.find((s) => s.method === 'POST')).toMatchObject({ type: 'application/json', body: '{"reason":"x"}' });
  });

  it('sends a text body as it is under the content type the caller names', async () => {
    const calls = createDroverApiCalls({ baseUrl, fetch: transport });
    const yaml = 'routines: []\n';
    await calls.POST('/api/v1/apply', {
      params: { query: { dryRun: 'true' } },
      body: yaml as never,
      bodySerializer: (b: unknown) => b as string,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(seen.at(-1)).toEqual({
      method: 'POST',
      url: '/api/v1/apply?dryRun=true',
      type: 'application/yaml',
      body: yaml,
      auth: undefined,
    });
  });

  it('answers data for a 2xx, nothing for an empty one, a DroverApiError for a problem', async () => {
    const calls = createDroverApiCalls({ baseUrl, fetch: transport });
    expect(await ok(calls.GET('/api/v1/audit'))).toEqual({ items: [], next_page_token: null });
    const empty = createDroverApiCalls({ baseUrl: `${baseUrl}empty`, fetch: transport });
    expect(await ok(empty.DELETE('/api/v1/routines/{name}', { params: { path: { name: 'n' } } }))).toBeUndefined();
    const err = (await calls
      .POST('/api/v1/routines/{name}/pause', { params: { path: { name: 'nightly' } }, body: {} })
      .catch((e: unknown) => e)) as DroverApiError;
    expect(err).toBeInstanceOf(DroverApiError);
    expect([err.status, err.code, err.message]).toEqual([
      404,
      'x',
      'POST /api/v1/routines/nightly/pause: 404 no nightly',
    ]);
  });

  it('says so when a 2xx answer is not JSON, instead of a bare parse error', async () => {
    const calls = createDroverApiCalls({ baseUrl, fetch: transport });
    await expect(calls.GET('/api/v1/cluster')).rejects.toThrow(
      'GET /api/v1/cluster: 200 answer is not JSON (text/html): <html>please log in</html>',
    );
  });
});
