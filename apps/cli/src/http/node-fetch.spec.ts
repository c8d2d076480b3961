import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, globalAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createDroverApiCalls, ok, readEventStream } from '@drover/api-client';
import { freePort, makeTestCerts, type TestCerts } from '@drover/testing';
import { explain } from '../explain';
import { nodeFetch } from './node-fetch';

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`${(server.address() as AddressInfo).port}`)));
const close = (server: Server) => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
};
/** What the CLI prints for a failure of `call` (the transport's errors as `explain` words them). */
const failureOf = async (call: Promise<unknown>, url: string) =>
  explain(
    await call.then(
      () => undefined,
      (e: unknown) => e,
    ),
    () => url,
  ).message;

describe('nodeFetch (the CLI transport)', () => {
  it('sends the method, headers and body, and answers status, headers and text', async () => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-seen': `${req.method} ${req.url}` });
        res.end(JSON.stringify({ body, type: req.headers['content-type'], length: req.headers['content-length'] }));
      });
    });
    const port = await listen(server);
    try {
      const res = await nodeFetch(`http://127.0.0.1:${port}/a?b=c`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"é":1}',
      });
      expect([res.status, res.statusText, res.headers.get('X-Seen')]).toEqual([201, 'Made', 'POST /a?b=c']);
      expect(JSON.parse(await res.text())).toEqual({ body: '{"é":1}', type: 'application/json', length: '8' });
    } finally {
      await close(server);
    }
  });

  it('reports a refused connection as fetch does, so the CLI says "connection refused"', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const err = await nodeFetch(`${url}/api/v1/queues`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe('fetch failed');
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expect(await failureOf(nodeFetch(`${url}/api/v1/queues`), url)).toBe(
      `cannot reach the Drover API at ${url}: connection refused (set --api-url or DROVER_API_URL)`,
    );
  });

  it('gives up on a server that accepts and never answers ("timed out")', async () => {
    const server = createServer(() => undefined);
    const url = `http://127.0.0.1:${await listen(server)}`;
    try {
      const call = nodeFetch(`${url}/api/v1/queues`, {}, { idleMs: 100 });
      expect(await failureOf(call, url)).toBe(
        `cannot reach the Drover API at ${url}: timed out (set --api-url or DROVER_API_URL)`,
      );
    } finally {
      await close(server);
    }
  });

  it('answers a non-JSON page as text; the typed calls say it is not JSON', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>sign in</html>');
    });
    const url = `http://127.0.0.1:${await listen(server)}`;
    try {
      expect(await (await nodeFetch(`${url}/`)).text()).toBe('<html>sign in</html>');
      const calls = createDroverApiCalls({ baseUrl: url, fetch: (u, init) => nodeFetch(u, init) });
      expect(await failureOf(ok(calls.GET('/api/v1/queues')), url)).toBe(
        'unexpected error: GET /api/v1/queues: 200 answer is not JSON (text/html): <html>sign in</html>',
      );
    } finally {
      await close(server);
    }
  });

  it('says so when an https URL reaches a plain-http server', async () => {
    const server = createServer((_req, res) => res.end('{}'));
    const url = `https://127.0.0.1:${await listen(server)}`;
    try {
      expect(await failureOf(nodeFetch(`${url}/api/v1/queues`), url)).toBe(
        `cannot reach the Drover API at ${url}: TLS handshake failed (an http:// server?) (set --api-url or DROVER_API_URL)`,
      );
    } finally {
      await close(server);
    }
  });

  describe('over TLS', () => {
    let certs: TestCerts;
    let server: Server;
    let url: string;

    beforeAll(async () => {
      certs = makeTestCerts();
      const tls = { cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) };
      server = createHttpsServer(tls, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"items":[]}');
      });
      url = `https://localhost:${await listen(server)}`;
    });

    afterAll(async () => {
      await close(server);
      certs.remove();
    });

    it('refuses a certificate Node does not trust, as fetch does ("certificate not trusted")', async () => {
      expect(await failureOf(nodeFetch(`${url}/api/v1/queues`), url)).toBe(
        `cannot reach the Drover API at ${url}: certificate not trusted (set --api-url or DROVER_API_URL)`,
      );
    });

    it('talks to a server whose CA is trusted (NODE_EXTRA_CA_CERTS does this for the CLI)', async () => {
      // Node reads NODE_EXTRA_CA_CERTS once, at start: the test trusts its CA through the agent.
      const agent = globalAgent.options;
      const before = agent.ca;
      agent.ca = certs.pem.ca;
      try {
        expect(await (await nodeFetch(`${url}/api/v1/queues`)).text()).toBe('{"items":[]}');
      } finally {
        agent.ca = before;
      }
    });
  });

  it('streams an event stream and stops quietly when aborted', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: run\ndata: {"n":1}\n\n');
      res.write('event: run\ndata: {"n":2}\n\n');
    });
    const url = `http://127.0.0.1:${await listen(server)}`;
    const abort = new AbortController();
    const seen: unknown[] = [];
    try {
      const events = readEventStream({ baseUrl: url, path: '/s', signal: abort.signal, fetch: nodeFetch });
      for await (const e of events) {
        seen.push(e);
        if (seen.length === 2) abort.abort();
      }
      expect(seen).toEqual([
        { event: 'run', data: '{"n":1}' },
        { event: 'run', data: '{"n":2}' },
      ]);
    } finally {
      await close(server);
    }
  });
});
