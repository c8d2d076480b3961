import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '@drover/config';
import { HttpCandidatesProvider } from './http-candidates.provider';

/**
 * `http.candidates` (run by the scheduler) against a real receiver on loopback: the same
 * allow-list and redirect rules as `http.request`, no `Host`/`X-Drover-*` from args, and an
 * answer read only up to its 4 MiB cap — an endless answer ends the call instead of hanging it.
 */
describe('http.candidates against a real receiver', () => {
  let server: Server;
  let base: string;
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  let endlessBytes = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      if (req.url?.endsWith('/redirect')) return void res.writeHead(302, { location: '/admin' }).end();
      if (req.url?.endsWith('/endless')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
        const chunk = Buffer.alloc(64 * 1024, ' ');
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) endlessBytes += chunk.length;
        };
        res.on('drain', pump);
        return pump();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('[{"key":"a","band":1,"stalenessSec":5}]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(() => {
    seen.length = 0;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const provider = (httpAllow?: string[]) => new HttpCandidatesProvider({ env: { httpAllow } } as unknown as AppConfig);
  const ask = (p: HttpCandidatesProvider, args: Record<string, unknown>) =>
    p.candidates({ routine: 'metas', slot: Date.UTC(2026, 0, 1), args, signal: AbortSignal.timeout(10_000) });

  it('answers the list from an allowed URL, with Drover headers the args cannot forge', async () => {
    const p = provider([`${base}/candidates`]);
    await expect(ask(p, { url: `${base}/candidates/all`, headers: { authorization: 'Bearer t' } })).resolves.toEqual([
      { key: 'a', band: 1, stalenessSec: 5 },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers).toMatchObject({
      authorization: 'Bearer t',
      accept: 'application/json',
      'x-drover-routine': 'metas',
      'x-drover-scheduled-for': '2026-01-01T00:00:00.000Z',
    });
  });

  it('refuses URLs outside the entry by whole segments, encoded escapes, and Host or X-Drover-* in args — before any request', async () => {
    const p = provider([`${base}/candidates`]);
    await expect(ask(p, { url: `${base}/candidates-admin` })).rejects.toThrow(
      `http.candidates: ${base}/candidates-admin is not allowed: DROVER_HTTP_ALLOW=${base}/candidates`,
    );
    await expect(ask(p, { url: `${base}/candidates%2F..%2Fadmin` })).rejects.toThrow(/is not allowed/);
    await expect(ask(p, { url: `${base}/candidates/x%2F..%2F..%2Fadmin` })).rejects.toThrow(
      /could be read as another path/,
    );
    await expect(ask(p, { url: `${base}/candidates`, headers: { Host: 'admin.internal' } })).rejects.toThrow(
      'http.candidates: args.headers.Host: is set by the HTTP client from the URL and body; a payload may not set it',
    );
    await expect(ask(p, { url: `${base}/candidates`, headers: { 'X-Drover-Routine': 'other' } })).rejects.toThrow(
      'http.candidates: args.headers.X-Drover-Routine: is in the X-Drover- namespace, which only Drover sets',
    );
    expect(seen).toEqual([]);
  });

  it('with DROVER_HTTP_ALLOW unset, calls loopback only; 169.254.169.254 is refused', async () => {
    await expect(ask(provider(undefined), { url: 'http://169.254.169.254/latest/meta-data/' })).rejects.toThrow(
      'http.candidates: http://169.254.169.254/latest/meta-data/ is not allowed: loopback only (DROVER_HTTP_ALLOW is unset)',
    );
  });

  it('does not follow a redirect', async () => {
    await expect(ask(provider([`${base}/candidates`]), { url: `${base}/candidates/redirect` })).rejects.toThrow(
      `http.candidates: ${base}/candidates/redirect answered 302 (redirects are not followed)`,
    );
    expect(seen.map((s) => s.path)).toEqual(['/candidates/redirect']);
  });

  it('stops reading an endless answer at 4 MiB and fails the tick instead of reading it all', async () => {
    await expect(ask(provider(undefined), { url: `${base}/endless` })).rejects.toThrow(
      'http.candidates: the answer is over 4194304 bytes',
    );
    expect(endlessBytes).toBeLessThan(64 * 1024 * 1024);
  });
});
