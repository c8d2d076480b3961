import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { OutboundRefusedError, type ResolveAll } from './guarded-lookup';
import { OutboundHttp, type OutboundRequest } from './outbound-http';
import { UrlAllowlist } from './url-allowlist';

/**
 * A real HTTP receiver on 127.0.0.1 that counts every request that reaches it (raw request
 * target, as sent), so a refusal is proven by what never arrived, not by what the client says.
 */
class Receiver {
  readonly seen: string[] = [];
  /** Connections callers opened to it. */
  connections = 0;
  private readonly served = new WeakMap<Socket, number>();
  /** Bytes the endless answer managed to write before the caller hung up. */
  endlessBytes = 0;
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.seen.push(req.url ?? '');
      const served = (this.served.get(req.socket) ?? 0) + 1;
      this.served.set(req.socket, served);
      // Hangs up without an answer: always, or (as a server closing an idle connection just as a
      // request arrives) on a connection that already served one.
      const path = req.url ?? '';
      if (path.endsWith('/drop') || (path.endsWith('/drop-kept') && served > 1)) return void req.socket.destroy();
      req.resume();
      req.on('end', () => this.answer(req.url ?? '', res));
    });
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  private answer(path: string, res: ServerResponse): void {
    if (path.endsWith('/redirect')) {
      res.writeHead(302, { location: `http://127.0.0.1:${this.port}/admin` }).end();
    } else if (path.endsWith('/endless')) {
      // Writes for as long as someone reads: a client that reads the whole body never returns.
      const chunk = Buffer.alloc(64 * 1024, 'x');
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) this.endlessBytes += chunk.length;
      };
      res.on('drain', pump);
      pump();
    } else if (path.endsWith('/last')) {
      // The caller may not keep this connection: its next request needs a new one.
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' }).end(`ok ${path}`);
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${path}`);
    }
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

const get = (url: string, maxBytes = 1024): OutboundRequest => ({
  url: new URL(url),
  method: 'GET',
  headers: {},
  signal: AbortSignal.timeout(10_000),
  maxBytes,
});

const v4 = (address: string): LookupAddress => ({ address, family: 4 });

describe('OutboundHttp against a real receiver on loopback', () => {
  let receiver: Receiver;
  let base: string;

  beforeEach(async () => {
    receiver = await new Receiver().start();
    base = `http://127.0.0.1:${receiver.port}`;
  });

  afterEach(async () => {
    await receiver.stop();
  });

  it('calls an allowed path; /allowed-admin and encoded escapes from /allowed are refused and never reach the receiver', async () => {
    const http = new OutboundHttp(new UrlAllowlist([`${base}/allowed`]));
    const ok = await http.request(get(`${base}/allowed/x`));
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe('ok /allowed/x');
    for (const path of [
      '/allowed-admin',
      '/allowed%2F..%2Fadmin',
      '/allowed%2f..%2fadmin',
      '/allowed%5C..%5Cadmin',
      '/allowed/x%2F..%2F..%2Fadmin',
      '/allowed/%2e%2e%2fadmin',
      '/allowed/..;/admin',
      '/allowed/%252e%252e/admin',
      '/allowed/../admin',
      '/admin',
    ]) {
      await expect(http.request(get(`${base}${path}`))).rejects.toThrow(OutboundRefusedError);
    }
    await expect(http.request(get(`${base}/allowed-admin`))).rejects.toThrow(
      `${base}/allowed-admin is not allowed: DROVER_HTTP_ALLOW=${base}/allowed`,
    );
    expect(receiver.seen).toEqual(['/allowed/x']);
  });

  it('keeps a connection for the next requests to the same origin, and checks each against the allow-list', async () => {
    const http = new OutboundHttp(new UrlAllowlist([`${base}/allowed`]));
    for (const path of ['/allowed/1', '/allowed/2', '/allowed/3'])
      expect((await http.request(get(`${base}${path}`))).status).toBe(200);
    await expect(http.request(get(`${base}/admin`))).rejects.toThrow(OutboundRefusedError);
    expect(receiver.seen).toEqual(['/allowed/1', '/allowed/2', '/allowed/3']);
    expect(receiver.connections).toBe(1);
  });

  it('keeps connections apart by host: localhost and 127.0.0.1 on one port are two', async () => {
    const http = new OutboundHttp(new UrlAllowlist(undefined));
    expect((await http.request(get(`http://localhost:${receiver.port}/a`))).status).toBe(200);
    expect((await http.request(get(`${base}/b`))).status).toBe(200);
    expect((await http.request(get(`${base}/c`))).status).toBe(200);
    expect(receiver.connections).toBe(2);
  });

  it('never reuses a connection it hung up on: the call after a capped answer gets a new one', async () => {
    const http = new OutboundHttp(new UrlAllowlist([base]));
    expect((await http.request(get(`${base}/endless`, 1024))).truncated).toBe(true);
    const next = await http.request(get(`${base}/x`));
    expect(next.body.toString()).toBe('ok /x');
    expect(receiver.connections).toBe(2);
  });

  it('sends a call once more, on a new connection, when its kept connection was closed under it', async () => {
    const http = new OutboundHttp(new UrlAllowlist([base]));
    expect((await http.request(get(`${base}/a`))).status).toBe(200);
    expect((await http.request(get(`${base}/b/drop-kept`))).status).toBe(200);
    expect(receiver.seen).toEqual(['/a', '/b/drop-kept', '/b/drop-kept']);
    expect(receiver.connections).toBe(2);
  });

  it('sends it once more only: a call a new connection hangs up on fails, and so does its one retry', async () => {
    const fresh = new OutboundHttp(new UrlAllowlist([base]));
    await expect(fresh.request(get(`${base}/x/drop`))).rejects.toThrow(/socket hang up/);
    expect(receiver.seen).toEqual(['/x/drop']);
    const kept = new OutboundHttp(new UrlAllowlist([base]));
    expect((await kept.request(get(`${base}/a`))).status).toBe(200);
    await expect(kept.request(get(`${base}/y/drop`))).rejects.toThrow(/socket hang up/);
    expect(receiver.seen).toEqual(['/x/drop', '/a', '/y/drop', '/y/drop']);
  });

  it('does not follow a redirect: the 302 is the answer and the receiver sees only the first request', async () => {
    const http = new OutboundHttp(new UrlAllowlist([`${base}/allowed`]));
    const res = await http.request(get(`${base}/allowed/redirect`));
    expect(res.status).toBe(302);
    expect(receiver.seen).toEqual(['/allowed/redirect']);
  });

  it('stops reading an answer at the cap and hangs up instead of reading the whole body', async () => {
    const http = new OutboundHttp(new UrlAllowlist(undefined));
    const res = await http.request(get(`${base}/endless`, 256 * 1024));
    expect(res).toMatchObject({ status: 200, truncated: true });
    expect(res.body.byteLength).toBe(256 * 1024);
    // The receiver could only write what socket buffers held past the cap before the hang-up.
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.endlessBytes).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses 0.0.0.0 (which connects to this host) even when an entry names it, before connecting', async () => {
    const http = new OutboundHttp(new UrlAllowlist([`http://0.0.0.0:${receiver.port}/`]));
    await expect(http.request(get(`http://0.0.0.0:${receiver.port}/x`))).rejects.toThrow(
      `http://0.0.0.0:${receiver.port}/x is not allowed: 0.0.0.0 is "this network" (0.0.0.0/8), which is never called`,
    );
    expect(receiver.seen).toEqual([]);
  });

  it('with DROVER_HTTP_ALLOW set, loopback is refused unless an entry names it', async () => {
    const http = new OutboundHttp(new UrlAllowlist(['https://hooks.example.com/']));
    await expect(http.request(get(`${base}/x`))).rejects.toThrow(OutboundRefusedError);
    expect(receiver.seen).toEqual([]);
  });

  describe('host names: the address checked is the address connected to (injected resolver)', () => {
    /** A resolver that answers each call from the next list and records what it was asked. */
    function scripted(...answers: LookupAddress[][]): ResolveAll & { calls: string[] } {
      const calls: string[] = [];
      const fn = (hostname: string) => {
        calls.push(hostname);
        return Promise.resolve(answers[Math.min(calls.length, answers.length) - 1]!);
      };
      return Object.assign(fn, { calls });
    }

    it('a named host resolving to 169.254.169.254 is refused before any connection', async () => {
      const resolve = scripted([v4('169.254.169.254')]);
      const http = new OutboundHttp(new UrlAllowlist([`http://metadata.test:${receiver.port}/`]), resolve);
      await expect(http.request(get(`http://metadata.test:${receiver.port}/latest/meta-data/`))).rejects.toThrow(
        `http://metadata.test:${receiver.port}/latest/meta-data/ is not allowed: metadata.test resolves to ` +
          '169.254.169.254: 169.254.169.254 is cloud metadata (169.254.169.254/32), which only an entry naming that address itself allows',
      );
      expect(resolve.calls).toEqual(['metadata.test']);
    });

    it('every address counts: one metadata address among loopback ones refuses the host', async () => {
      const resolve = scripted([v4('127.0.0.1'), { address: '::ffff:a9fe:a9fe', family: 6 }]);
      const http = new OutboundHttp(new UrlAllowlist([`http://localhost:${receiver.port}/`]), resolve);
      await expect(http.request(get(`http://localhost:${receiver.port}/x`))).rejects.toThrow(/IPv4-mapped/);
      expect(receiver.seen).toEqual([]);
    });

    it('rebinding: loopback on the first resolution, metadata on the next — the next connect is refused', async () => {
      const resolve = scripted([v4('127.0.0.1')], [v4('169.254.169.254')]);
      const http = new OutboundHttp(new UrlAllowlist([`http://localhost:${receiver.port}/`]), resolve);
      expect((await http.request(get(`http://localhost:${receiver.port}/first/last`))).status).toBe(200);
      await expect(http.request(get(`http://localhost:${receiver.port}/second`))).rejects.toThrow(
        /localhost resolves to 169\.254\.169\.254: 169\.254\.169\.254 is cloud metadata/,
      );
      expect(resolve.calls).toEqual(['localhost', 'localhost']);
      expect(receiver.seen).toEqual(['/first/last']);
    });

    it('a kept connection goes on to the address checked when it was made; a new one is resolved and checked again', async () => {
      const resolve = scripted([v4('127.0.0.1')], [v4('169.254.169.254')]);
      const http = new OutboundHttp(new UrlAllowlist([`http://localhost:${receiver.port}/`]), resolve);
      expect((await http.request(get(`http://localhost:${receiver.port}/a`))).status).toBe(200);
      // The name now points at the metadata address: the kept connection still reaches 127.0.0.1.
      expect((await http.request(get(`http://localhost:${receiver.port}/b/last`))).status).toBe(200);
      expect(resolve.calls).toEqual(['localhost']);
      await expect(http.request(get(`http://localhost:${receiver.port}/c`))).rejects.toThrow(/is cloud metadata/);
      expect(resolve.calls).toEqual(['localhost', 'localhost']);
      expect(receiver.seen).toEqual(['/a', '/b/last']);
      expect(receiver.connections).toBe(1);
    });

    it('a named host (not localhost) resolving to loopback is refused; an entry naming localhost allows it', async () => {
      const resolve = scripted([v4('127.0.0.1')]);
      const named = new OutboundHttp(new UrlAllowlist([`http://backup.test:${receiver.port}/`]), resolve);
      await expect(named.request(get(`http://backup.test:${receiver.port}/x`))).rejects.toThrow(
        /backup\.test resolves to 127\.0\.0\.1: 127\.0\.0\.1 is loopback \(127\.0\.0\.0\/8\), which only an entry naming localhost or the address allows/,
      );
      expect(receiver.seen).toEqual([]);
    });

    it('with DROVER_HTTP_ALLOW unset, localhost must resolve to loopback', async () => {
      const http = new OutboundHttp(new UrlAllowlist(undefined), scripted([v4('10.0.0.7')]));
      await expect(http.request(get(`http://localhost:${receiver.port}/x`))).rejects.toThrow(
        /localhost resolves to 10\.0\.0\.7: 10\.0\.0\.7 is private .*only loopback is allowed while DROVER_HTTP_ALLOW is unset/,
      );
      expect(receiver.seen).toEqual([]);
    });

    it('the system resolver is used by default: localhost reaches the receiver', async () => {
      const http = new OutboundHttp(new UrlAllowlist(undefined));
      expect((await http.request(get(`http://localhost:${receiver.port}/sys`))).status).toBe(200);
      expect(receiver.seen).toEqual(['/sys']);
    });
  });
});
