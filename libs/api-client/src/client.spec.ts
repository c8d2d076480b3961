import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDroverApiClient, DroverApiError, ok, type components, type DroverApiClient } from './index';

type AuditPage = components['schemas']['AuditPage'];

/** Compile-time equality: `expectType<Exact<A, B>>(true)` fails `npm run typecheck` when A ≠ B. */
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const expectType = <T extends true>(_: T): void => undefined;

/** A real HTTP server on loopback answering like the api does, so the client's fetch path runs for real. */
function fakeApi(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer(handler).listen(0, '127.0.0.1', () => resolve(server));
  });
}

describe('createDroverApiClient', () => {
  let server: Server;
  let client: DroverApiClient;
  const seen: { url?: string; auth?: string }[] = [];

  beforeAll(async () => {
    server = await fakeApi((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization });
      if (req.url?.startsWith('/api/v1/audit')) {
        if (req.headers.authorization !== 'Bearer t0k') {
          res.writeHead(403, { 'content-type': 'application/problem+json' });
          res.end(
            JSON.stringify({
              type: 'urn:drover:problem:forbidden',
              title: 'Forbidden',
              status: 403,
              detail: 'this route needs role admin',
            }),
          );
          return;
        }
        const page: AuditPage = { items: [], next_page_token: '1-0' };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(page));
        return;
      }
      if (req.url?.startsWith('/api/v1/routines/')) {
        res.writeHead(404, { 'content-type': 'application/problem+json' });
        res.end(
          JSON.stringify({
            type: 'urn:drover:problem:not-found',
            title: 'Not found',
            status: 404,
            detail: 'routine "nightly" does not exist',
            code: 'routine-not-found',
          }),
        );
        return;
      }
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    });
    const { port } = server.address() as AddressInfo;
    client = createDroverApiClient({ baseUrl: `http://127.0.0.1:${port}/`, token: 't0k' });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends the bearer token and the typed query, and types the answer from the document', async () => {
    const { data, response } = await client.GET('/api/v1/audit', { params: { query: { page_size: 5 } } });
    expect(response.status).toBe(200);
    expect(data).toEqual({ items: [], next_page_token: '1-0' });
    expect(seen.at(-1)).toEqual({ url: '/api/v1/audit?page_size=5', auth: 'Bearer t0k' });

    const page = await ok(client.GET('/api/v1/audit'));
    expectType<Exact<typeof page, AuditPage>>(true);
    expect(page.next_page_token).toBe('1-0');
    // Checked by `npm run typecheck`, never called: calls the document does not allow.
    const _misuse = () => [
      // @ts-expect-error -- not a route of the document
      client.GET('/api/v1/no-such-route'),
      // @ts-expect-error -- page_size is a number in the document
      client.GET('/api/v1/audit', { params: { query: { page_size: 'ten' } } }),
      // @ts-expect-error -- GET /audit takes no body
      client.POST('/api/v1/audit', { body: {} }),
    ];
  });

  it('rejects a problem answer with a DroverApiError carrying the status and the problem', async () => {
    const { port } = server.address() as AddressInfo;
    const noToken = createDroverApiClient({ baseUrl: `http://127.0.0.1:${port}` });
    const err = await noToken.GET('/api/v1/audit').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DroverApiError);
    const apiErr = err as DroverApiError;
    expect(apiErr.status).toBe(403);
    expect(apiErr.problem).toEqual({
      type: 'urn:drover:problem:forbidden',
      title: 'Forbidden',
      status: 403,
      detail: 'this route needs role admin',
    });
    expect(apiErr.message).toBe('GET /api/v1/audit: 403 this route needs role admin');
    expect(apiErr.fieldErrors).toEqual([]);
    expect(apiErr.code).toBeUndefined();
    expect(seen.at(-1)?.auth).toBeUndefined();
  });

  it('exposes the code of the Drover error the server answered with, typed from the document', async () => {
    const err = await client
      .GET('/api/v1/routines/{name}', { params: { path: { name: 'nightly' } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DroverApiError);
    const code = (err as DroverApiError).code;
    expect(code).toBe('routine-not-found');
    // @ts-expect-error -- not a code the api answers with
    expect(code === 'no-such-code').toBe(false);
  });

  it('makes a problem from a non-problem error answer (a proxy in between)', async () => {
    const err = (await client.GET('/api/v1/openapi.json').catch((e: unknown) => e)) as DroverApiError;
    expect(err).toBeInstanceOf(DroverApiError);
    expect(err.problem).toEqual({
      type: 'about:blank',
      title: 'Bad Gateway',
      status: 502,
      detail: '<html>bad gateway</html>',
    });
  });
});
