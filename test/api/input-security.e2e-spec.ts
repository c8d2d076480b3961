import { waitFor } from '@drover/testing';
import { ApiCluster, expectProblem } from './support/api-cluster';

const QUEUES = [{ name: 'default', concurrency: 5 }];
const FILE_SYSTEM = {
  name: 'file-system',
  jobType: 'noop',
  queue: 'default',
  trigger: { kind: 'manual' },
  system: true,
};
const POLICY = { queues: QUEUES, routines: [FILE_SYSTEM] };

const routine = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  jobType: 'noop',
  queue: 'default',
  trigger: { kind: 'cron', cron: '0 2 * * *', tz: 'UTC' },
  ...extra,
});

/**
 * Input hardening against a real api (with a scheduler applying the policy file and a
 * worker running its jobs): what an operator may not do to system routines, the headers every
 * answer carries, If-Match, body nesting, long unknown keys, and run ids naming BullMQ's keys.
 */
describe('api input security (real api, scheduler and worker)', () => {
  let api: ApiCluster;

  beforeAll(async () => {
    api = await ApiCluster.start('api-input-sec', { policy: POLICY });
    await waitFor('the policy file applied', async () => (await api.cluster.routines.get('file-system')) ?? undefined, {
      timeoutMs: 15_000,
    });
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  const stored = async (name: string) => {
    const rec = await api.cluster.routines.get(name);
    return rec ? { version: rec.version, def: rec.def } : null;
  };

  describe('system routines: every write needs admin', () => {
    it('refuses an operator every change to a system routine (403) and stores nothing', async () => {
      const made = await api.call('POST', '/routines', { as: 'admin', body: routine('sys', { system: true }) });
      expect(made.status).toBe(201);
      for (const name of ['sys', 'file-system']) {
        const before = await stored(name);
        expect(before?.def.system).toBe(true);
        const tries = [
          api.call('PUT', `/routines/${name}`, { as: 'operator', body: routine(name) }),
          api.call('PUT', `/routines/${name}`, { as: 'operator', body: routine(name, { system: true }) }),
          api.call('PATCH', `/routines/${name}`, { as: 'operator', body: { system: false } }),
          api.call('PATCH', `/routines/${name}`, { as: 'operator', body: { system: null } }),
          api.call('PATCH', `/routines/${name}`, { as: 'operator', body: { owner: 'mallory' } }),
          api.call('PATCH', `/routines/${name}`, { as: 'operator', body: { trigger: { cron: 'nope' } } }),
          api.call('DELETE', `/routines/${name}`, { as: 'operator' }),
          api.call('POST', `/routines/${name}/trigger`, { as: 'operator', body: { payload: { evil: true } } }),
        ];
        for (const answer of await Promise.all(tries)) {
          const problem = expectProblem(answer, 403);
          expect(problem.detail).toMatch(
            new RegExp(`system routine "${name}" .*needs role admin; token "operator-token" has role operator$`),
          );
        }
        expect(await stored(name)).toEqual(before);
      }
      const apply = expectProblem(
        await api.call('POST', '/apply', { as: 'operator', body: { queues: QUEUES, routines: [] } }),
        403,
      );
      expect(apply.detail).toBe('this route needs role admin; token "operator-token" has role operator');
      expect(await stored('file-system')).toMatchObject({ def: { system: true } });
    });

    it('refuses an operator making a routine system, by create, PUT or PATCH', async () => {
      await api.call('POST', '/routines', { as: 'operator', body: routine('plain') });
      const before = await stored('plain');
      const tries = [
        api.call('POST', '/routines', { as: 'operator', body: routine('new-sys', { system: true }) }),
        api.call('PUT', '/routines/new-sys', { as: 'operator', body: routine('new-sys', { system: true }) }),
        api.call('PUT', '/routines/plain', { as: 'operator', body: routine('plain', { system: true }) }),
        api.call('PATCH', '/routines/plain', { as: 'operator', body: { system: true } }),
      ];
      for (const answer of await Promise.all(tries)) {
        expect(expectProblem(answer, 403).detail).toMatch(/ a system routine needs role admin; token "operator-token"/);
      }
      expect(await stored('new-sys')).toBeNull();
      expect(await stored('plain')).toEqual(before);
    });

    it('leaves an operator the operational actions: pause, resume, a plain trigger, backfill', async () => {
      expect((await api.call('POST', '/routines/sys/pause', { as: 'operator', body: { note: 'maint' } })).status).toBe(
        200,
      );
      expect((await api.call('POST', '/routines/sys/resume', { as: 'operator' })).status).toBe(200);
      expect((await api.call('POST', '/routines/sys/trigger', { as: 'operator' })).status).toBe(201);
      expect((await api.call('POST', '/routines/sys/trigger', { as: 'operator', body: {} })).status).toBe(201);
      const to = new Date(Date.now() - 60_000).toISOString();
      const from = new Date(Date.now() - 3 * 86_400_000).toISOString();
      expect((await api.call('POST', '/routines/sys/backfill', { as: 'operator', body: { from, to } })).status).toBe(
        201,
      );
      expect(await stored('sys')).toMatchObject({ def: { system: true } });
    });

    it('lets an admin edit one; a PUT that omits system keeps it, only system: false clears it', async () => {
      const put = await api.call('PUT', '/routines/sys', { as: 'admin', body: routine('sys', { owner: 'ops' }) });
      expect(put.status).toBe(200);
      expect(put.body.definition).toMatchObject({ owner: 'ops', system: true });
      const run = await api.call('POST', '/routines/sys/trigger', { as: 'admin', body: { payload: { n: 1 } } });
      expect(run.status).toBe(201);
      const cleared = await api.call('PATCH', '/routines/sys', { as: 'admin', body: { system: false } });
      expect(cleared.status).toBe(200);
      expect(cleared.body.definition.system).toBe(false);
      // No longer system: an operator's again.
      expect((await api.call('PATCH', '/routines/sys', { as: 'operator', body: { owner: 'dev' } })).status).toBe(200);
      expect((await api.call('DELETE', '/routines/sys', { as: 'operator' })).status).toBe(204);
    });
  });

  describe('headers', () => {
    it('carries the safe headers on answers, problems and the OpenAPI document, and no X-Powered-By', async () => {
      const answers = [
        await api.call('GET', '/routines', { as: 'viewer' }),
        await api.call('GET', '/routines/nope', { as: 'viewer' }),
        await api.call('GET', '/routines', { as: 'none' }),
        await api.call('GET', '/openapi.json', { as: 'none' }),
        await api.call('POST', '/jobs', { as: 'admin', raw: '{', contentType: 'application/json' }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 404, 401, 200, 400]);
      for (const { headers } of answers) {
        expect(headers.get('x-powered-by')).toBeNull();
        expect(headers.get('x-content-type-options')).toBe('nosniff');
        expect(headers.get('referrer-policy')).toBe('no-referrer');
        expect(headers.get('x-frame-options')).toBe('DENY');
        expect(headers.get('cross-origin-resource-policy')).toBe('same-origin');
        expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(headers.get('content-security-policy')).toContain("default-src 'none'");
      }
      const health = await fetch(`${api.api.baseUrl}/healthz`);
      expect(health.headers.get('x-powered-by')).toBeNull();
    });

    it("keeps the console's own policy at /ui", async () => {
      const ui = await fetch(`${api.api.baseUrl}/ui/`);
      expect(ui.headers.get('x-powered-by')).toBeNull();
      expect(ui.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = ui.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain("default-src 'none'");
    });

    it('answers 412 to a well-formed If-Match this api never made, 400 only to a malformed one', async () => {
      await api.call('POST', '/routines', { as: 'operator', body: routine('tagged') });
      const before = await stored('tagged');
      for (const [method, body] of [
        ['PUT', routine('tagged', { owner: 'x' })],
        ['PATCH', { owner: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        for (const tag of ['"stale"', 'W/"stale"', '"stale", "7"', '""']) {
          const answer = await api.call(method, '/routines/tagged', {
            as: 'operator',
            body,
            headers: { 'if-match': tag },
          });
          expectProblem(answer, 412);
        }
        const bad = expectProblem(
          await api.call(method, '/routines/tagged', { as: 'operator', body, headers: { 'if-match': 'stale' } }),
          400,
        );
        expect(bad.errors).toEqual([{ path: 'headers.if-match', message: expect.stringContaining('ETag') }]);
      }
      const stale = expectProblem(
        await api.call('PATCH', '/routines/tagged', {
          as: 'operator',
          body: { owner: 'x' },
          headers: { 'if-match': '"stale"' },
        }),
        412,
      );
      expect(stale.detail).toBe('If-Match "stale" names no version of routine "tagged"; its ETag is "1"');
      expect(await stored('tagged')).toEqual(before);
      const listed = await api.call('PATCH', '/routines/tagged', {
        as: 'operator',
        body: { owner: 'y' },
        headers: { 'if-match': '"stale", "1"' },
      });
      expect(listed.status).toBe(200);
      expect(listed.headers.get('etag')).toBe('"2"');
    });
  });

  describe('bodies', () => {
    const deepJson = (levels: number, leaf = '1') => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);

    it('refuses JSON nested past 100 levels with a 400 naming the limit, for JSON and merge patches', async () => {
      await api.call('POST', '/routines', { as: 'operator', body: routine('deep') });
      const before = await stored('deep');
      for (const levels of [101, 4_000, 10_000, 150_000]) {
        for (const contentType of ['application/json', 'application/merge-patch+json']) {
          const raw = `{"labels":${deepJson(levels - 1)}}`;
          const answer = await api.call('PATCH', '/routines/deep', { as: 'operator', raw, contentType });
          const problem = expectProblem(answer, 400);
          expect(problem.detail).toBe('invalid request: body is nested deeper than 100 levels of arrays and objects');
          expect(problem.errors).toEqual([{ path: 'body', message: expect.stringContaining('100 levels') }]);
        }
      }
      const job = `{"jobType":"noop","payload":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
      expectProblem(await api.call('POST', '/jobs', { as: 'operator', raw: job }), 400);
      const bundle = `{"queues":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
      expectProblem(await api.call('POST', '/apply?dryRun=true', { as: 'admin', raw: bundle }), 400);
      expect(await stored('deep')).toEqual(before);
      // 100 levels in all is a body like any other (here the labels are then refused by core).
      const ok = await api.call('PATCH', '/routines/deep', { as: 'operator', raw: `{"labels":${deepJson(98)}}` });
      expect(ok.status).toBe(400);
      expect(ok.body.detail).not.toContain('nested deeper');
    });

    it('refuses YAML bundles nested past 100 levels before parsing them', async () => {
      for (const yaml of [
        `queues: ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`,
        `queues:\n${'- '.repeat(200_000)}a\n`,
        `queues: ${'{a: '.repeat(3_000)}1${'}'.repeat(3_000)}\n`,
      ]) {
        const answer = await api.call('POST', '/apply?dryRun=true', {
          as: 'admin',
          raw: yaml,
          contentType: 'application/yaml',
        });
        expect(expectProblem(answer, 400).detail).toContain('nested deeper than 100 levels');
      }
      const fine = await api.call('POST', '/apply?dryRun=true', {
        as: 'admin',
        raw: 'queues:\n  - name: default\n    concurrency: 5\nroutines: []\n',
        contentType: 'application/yaml',
      });
      expect(fine.status).toBe(200);
      expect((await api.call('GET', '/queues', { as: 'viewer' })).status).toBe(200); // still serving
    });

    it('answers a 1 MB unknown field name at once, echoing only its start', async () => {
      const key = 'k'.repeat(1_000_000);
      const started = Date.now();
      const answer = await api.call('POST', `/routines/deep/pause`, { as: 'operator', raw: `{"${key}":1}` });
      const tookMs = Date.now() - started;
      const problem = expectProblem(answer, 400);
      expect(problem.errors).toEqual([
        {
          path: `body.${'k'.repeat(64)}… (1000000 characters)`,
          message: `unknown field "${'k'.repeat(64)}… (1000000 characters)"; valid fields: note, until`,
        },
      ]);
      expect(answer.text.length).toBeLessThan(2_000);
      expect(tookMs).toBeLessThan(30_000); // generous: the point is the bounded answer above
    });
  });

  describe("run ids that name BullMQ's own keys", () => {
    it('answers 404 on every run route, with real jobs and events in the queue', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const made = await api.call('POST', '/jobs', { as: 'operator', body: { jobType: 'noop', payload: { i } } });
        ids.push(made.body.runId);
      }
      await waitFor('the jobs to finish', async () => {
        const runs = await Promise.all(ids.map((id) => api.call('GET', `/runs/${id}`, { as: 'viewer' })));
        return runs.every((r) => r.body.status === 'succeeded');
      });
      const later = await api.call('POST', '/jobs', {
        as: 'operator',
        body: { jobType: 'noop', payload: {}, delayMs: 3_600_000 },
      });
      expect(later.status).toBe(201);

      const suffixes = [
        'events',
        'stalled-check',
        'meta',
        'id',
        'wait',
        'paused',
        'active',
        'prioritized',
        'delayed',
        'completed',
        'failed',
        'stalled',
        'waiting-children',
        'marker',
        'limiter',
        'pc',
        'de',
        'repeat',
        'metrics',
        `${ids[0]}:logs`,
        `${ids[0]}:lock`,
      ];
      for (const id of suffixes) {
        const path = encodeURIComponent(id);
        for (const [method, route] of [
          ['GET', `/runs/${path}`],
          ['POST', `/runs/${path}/cancel`],
          ['GET', `/runs/${path}/events`],
          ['POST', `/queues/default/parked/${path}/replay`],
          ['DELETE', `/queues/default/parked/${path}`],
        ] as const) {
          const answer = await api.call(method, route, { as: 'admin' });
          if (answer.status !== 404) throw new Error(`${method} ${route} answered ${answer.status}: ${answer.text}`);
          expectProblem(answer, 404);
        }
      }
      expect((await api.call('GET', `/runs/${ids[0]}`, { as: 'viewer' })).body.status).toBe('succeeded');
    });
  });
});
