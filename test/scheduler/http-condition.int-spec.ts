import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpCondition } from '@drover/builtins';
import type { AppConfig } from '@drover/config';
import { parseBundle, runIdForSlot, type Routine } from '@drover/core';
import { dispatcherHarness } from '../../libs/scheduler/src/testing/dispatcher-harness';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;

function routine(condition: unknown, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [
      {
        name: 'gated',
        jobType: 'noop',
        queue: 'default',
        trigger: { kind: 'interval', everyMs: MIN },
        condition,
        ...extra,
      },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

/**
 * The `http` condition kind through the real dispatcher and a real Redis, against a real receiver on
 * 127.0.0.1 that counts what reaches it: the allow-list and guards of `http.request`, the three
 * outcomes (run, skip, launch failure) and the routine's `conditionTimeoutMs`.
 */
describe('condition http (real Redis, real receiver)', () => {
  let server: Server;
  let base: string;
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      const path = req.url ?? '';
      if (path.endsWith('/yes')) return void res.writeHead(200).end('{"run":true}');
      if (path.endsWith('/no')) return void res.writeHead(200).end('{"run":false,"why":"nothing new"}');
      if (path.endsWith('/down')) return void res.writeHead(503).end('{"run":true}');
      if (path.endsWith('/text')) return void res.writeHead(200).end('run');
      if (path.endsWith('/hang')) return; // never answers
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(async () => {
    seen.length = 0;
    h = await dispatcherHarness([{ name: 'default' }], T0);
    const http = new HttpCondition({ env: { httpAllow: [`${base}/gate`] } } as unknown as AppConfig);
    h.kinds.register('http', (ctx) => http.check(ctx), 'HttpCondition');
  });

  afterEach(async () => {
    await h.close();
  });

  const fireAt = (minutes: number) => {
    h.clock.t = T0 + minutes * MIN;
    return h.dispatcher.dispatch('gated', { slot: h.clock.t });
  };

  it('runs on {"run": true} from an allowed URL, sending the headers given and Drover`s own', async () => {
    await h.routines.upsert(
      routine({ kind: 'http', url: `${base}/gate/yes`, headers: { authorization: 'Bearer t' } }),
      'api',
      T0,
    );
    expect((await fireAt(1))!.enqueued).toEqual([runIdForSlot('gated', T0 + MIN)]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers).toMatchObject({
      authorization: 'Bearer t',
      accept: 'application/json',
      'x-drover-routine': 'gated',
      'x-drover-scheduled-for': new Date(T0 + MIN).toISOString(),
    });
  });

  it('skips, healthy, on {"run": false}', async () => {
    await h.routines.upsert(routine({ kind: 'http', url: `${base}/gate/no` }), 'api', T0);
    expect((await fireAt(1))!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + MIN), reason: 'condition-false' }]);
    expect((await h.routines.getState('gated')).consecutiveFailures).toBe(0);
  });

  it('refuses a URL outside DROVER_HTTP_ALLOW before any request, as a launch failure that says so', async () => {
    await h.routines.upsert(routine({ kind: 'http', url: `${base}/gate-admin/yes` }), 'api', T0);
    expect((await fireAt(1))!.failed).toEqual([
      {
        id: runIdForSlot('gated', T0 + MIN),
        error: `condition-failed: condition http: ${base}/gate-admin/yes is not allowed: DROVER_HTTP_ALLOW=${base}/gate`,
      },
    ]);
    expect(seen).toEqual([]);
  });

  it('counts a non-2xx and a body that is not {"run": boolean} as launch failures, then disables the routine', async () => {
    await h.routines.upsert(routine({ kind: 'http', url: `${base}/gate/down` }, { maxLaunchFailures: 2 }), 'api', T0);
    expect((await fireAt(1))!.failed[0]!.error).toBe(
      `condition-failed: condition http: ${base}/gate/down answered 503; a condition answers 2xx with {"run": true|false}`,
    );
    await h.routines.upsert(routine({ kind: 'http', url: `${base}/gate/text` }, { maxLaunchFailures: 2 }), 'api', T0);
    expect((await fireAt(2))!.failed[0]!.error).toMatch(/gate\/text answered 200 with a body that is not JSON/);
    const state = await h.routines.getState('gated');
    expect(state.disabledReason).toMatch(/launch failed 2 times in a row.*not JSON/);
  });

  it('gives the call the routine`s conditionTimeoutMs: no answer is a launch failure', async () => {
    await h.routines.upsert(
      routine({ kind: 'http', url: `${base}/gate/hang` }, { conditionTimeoutMs: 300 }),
      'api',
      T0,
    );
    const started = Date.now();
    const res = await fireAt(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res!.failed[0]!.error).toBe(
      `condition-failed: condition "http GET ${base}/gate/hang" did not answer within 300 ms`,
    );
    expect(seen).toHaveLength(1);
  });
});
