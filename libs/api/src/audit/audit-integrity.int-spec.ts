import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type INestApplication, Module } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { NestFactory } from '@nestjs/core';
import { stringify } from 'yaml';
import { loadAppConfig } from '@drover/config';
import { createLogger } from '@drover/logger';
import { PlatformModule } from '@drover/platform';
import { testRedisUrl, testStores, uniquePrefix } from '@drover/testing';
import { AUDIT_CAPS, type AuditCaps } from '@drover/store';
import { ApiModule } from '../api.module';
import { REFUSAL_LIMIT } from '../auth/refusal-throttle';
import { configureApiHttp } from '../http/configure-http';

/** The real api stack in-process over the test redis-server, with the audit caps and refusal limit given. */
async function startApi(label: string, caps: AuditCaps, refusalLimit: number) {
  const prefix = uniquePrefix(label);
  const stores = testStores(label, { prefix });
  await stores.registry.put([{ name: 'q' }]);
  const admin = `a-${randomBytes(16).toString('hex')}`;
  const file = join(mkdtempSync(join(tmpdir(), 'drover-audit-')), 'tokens.yaml');
  const viewer = `v-${randomBytes(16).toString('hex')}`;
  const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');
  writeFileSync(
    file,
    stringify({
      tokens: [
        { name: 'admin-token', role: 'admin', sha256: sha256(admin) },
        { name: 'viewer-token', role: 'viewer', sha256: sha256(viewer) },
      ],
    }),
  );
  const meta = (key: string) => Reflect.getMetadata(key, ApiModule) as never[];
  @Module({
    imports: meta(MODULE_METADATA.IMPORTS),
    controllers: meta(MODULE_METADATA.CONTROLLERS),
    providers: [
      ...meta(MODULE_METADATA.PROVIDERS),
      { provide: AUDIT_CAPS, useValue: caps },
      { provide: REFUSAL_LIMIT, useValue: refusalLimit },
    ],
  })
  class CappedApiModule {}
  const config = loadAppConfig(
    'api',
    { port: 0 },
    {
      REDIS_URL: testRedisUrl(),
      DROVER_PREFIX: prefix,
      DROVER_INSTANCE_ID: label,
      DROVER_API_TOKENS_FILE: file,
      DROVER_API_RATE_LIMIT: '0',
    },
  );
  const logger = createLogger({ app: 'api', instanceId: label, level: 'fatal', format: 'json' });
  const app: INestApplication = await NestFactory.create(
    { module: CappedApiModule, imports: [PlatformModule.forRoot(config, logger), CappedApiModule] },
    { logger: false, bodyParser: false },
  );
  configureApiHttp(app);
  await app.listen(0, '127.0.0.1');
  const base = `${await app.getUrl()}/api/v1`;
  const call = async (method: string, path: string, token?: string, init: { headers?: object; body?: string } = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(token && { authorization: `Bearer ${token}` }), ...init.headers } as Record<string, string>,
      body: init.body,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  return {
    admin,
    viewer,
    call,
    stores,
    auditKey: (log?: 'refused') => (log ? stores.keys.auditRefused() : stores.keys.audit()),
    async close() {
      await app.close();
      await stores.close();
    },
  };
}

type Api = Awaited<ReturnType<typeof startApi>>;

/**
 * Refused writes, as a flood would send them, `n` in all (in batches): anonymous and wrong-token
 * ones, or all with `token` (one whose role is too low).
 */
async function flood(api: Api, n: number, token?: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from({ length: Math.min(50, n - i) }, (_, j) =>
      api.call('POST', '/queues/q/pause', token ?? ((i + j) % 2 ? 'not-a-token' : undefined)),
    );
    statuses.push(...(await Promise.all(batch)).map((r) => r.status));
  }
  return statuses;
}

/**
 * No flood of refused calls may push out what principals did. Scaled down by ten against caps
 * made small: 10,500 anonymous writes against a 10,000-entry log become 1,050 against 100.
 */
describe('audit integrity against anonymous floods (real api stack, real redis-server)', () => {
  describe('with no refusal limit at all', () => {
    let api: Api;
    beforeAll(async () => {
      api = await startApi('audit-flood', { principals: 100, refused: 20 }, 0);
    }, 30_000);
    afterAll(() => api?.close(), 30_000);

    it("keeps the admin's pause however many refused anonymous writes follow it", async () => {
      expect((await api.call('POST', '/queues/q/pause', api.admin)).status).toBe(200);
      const statuses = await flood(api, 1_050);
      expect(new Set(statuses)).toEqual(new Set([401]));

      const audit = await api.call('GET', '/audit?page_size=1000', api.admin);
      expect(audit.body.items).toEqual([
        expect.objectContaining({
          token: 'admin-token',
          role: 'admin',
          action: 'pauseQueue',
          target: 'name=q',
          status: 200,
        }),
      ]);
      // The refusals are kept apart, in their own log, trimmed to its own cap (approximately:
      // Redis trims whole nodes of 100 entries).
      const refused = await api.call('GET', '/audit?log=refused&page_size=1000', api.admin);
      expect(refused.body.items[0]).toMatchObject({ token: 'anonymous', role: '-', action: 'pauseQueue', status: 401 });
      expect(refused.body.items.length).toBeGreaterThanOrEqual(20);
      expect(await api.stores.connections.command.xlen(api.auditKey('refused'))).toBeLessThanOrEqual(120);
    }, 60_000);

    it("keeps the admin's pause however many anonymous console logins and logouts follow it", async () => {
      const before = await api.call('GET', '/audit?page_size=1000', api.admin);
      const json = { 'content-type': 'application/json' };
      const csrf = { 'x-drover-csrf': '1' };
      const attempts = [
        () => api.call('POST', '/session', undefined, { headers: { ...json, ...csrf }, body: '{"token":"guess"}' }),
        () => api.call('POST', '/session', undefined, { headers: json, body: '{"token":"guess"}' }),
        () => api.call('DELETE', '/session', undefined, { headers: csrf }),
      ];
      const statuses: number[] = [];
      for (let i = 0; i < 1_050; i += 50) {
        const batch = Array.from({ length: 50 }, (_, j) => attempts[(i + j) % 3]!());
        statuses.push(...(await Promise.all(batch)).map((r) => r.status));
      }
      expect(new Set(statuses)).toEqual(new Set([401, 403, 204]));

      expect((await api.call('GET', '/audit?page_size=1000', api.admin)).body.items).toEqual(before.body.items);
      // Where they went instead: one login and one logout in turn, so the newest two entries are known
      // (the flood's order within a batch is the server's, and this log's cap is 20).
      expect((await attempts[0]!()).status).toBe(401);
      expect((await attempts[2]!()).status).toBe(204);
      const refused = await api.call('GET', '/audit?log=refused&page_size=2', api.admin);
      expect(refused.body.items.map((e: { action: string }) => e.action)).toEqual(['deleteSession', 'createSession']);
      expect((await api.call('GET', '/audit?page_size=1000', api.admin)).body.items).toEqual(before.body.items);
    }, 60_000);

    it("keeps the admin's pause however many writes a viewer token is refused", async () => {
      const before = await api.call('GET', '/audit?page_size=1000', api.admin);
      const statuses = await flood(api, 1_050, api.viewer);
      expect(new Set(statuses)).toEqual(new Set([403]));

      const after = await api.call('GET', '/audit?page_size=1000', api.admin);
      expect(after.body.items).toEqual(before.body.items);
      expect(after.body.items).toContainEqual(expect.objectContaining({ token: 'admin-token', action: 'pauseQueue' }));
      const refused = await api.call('GET', '/audit?log=refused&page_size=1', api.admin);
      expect(refused.body.items[0]).toMatchObject({ token: 'viewer-token', role: 'viewer', status: 403 });
    }, 60_000);
  });

  describe('with a refusal limit of 30 a minute per address', () => {
    let api: Api;
    beforeAll(async () => {
      api = await startApi('audit-limit', { principals: 100, refused: 1_000 }, 30);
    }, 30_000);
    afterAll(() => api?.close(), 30_000);

    it('answers 429 with Retry-After past the limit and records nothing more; valid tokens still pass', async () => {
      expect((await api.call('POST', '/queues/q/pause', api.admin)).status).toBe(200);
      const statuses = await flood(api, 1_050);
      expect(statuses.filter((s) => s === 401)).toHaveLength(30);
      expect(statuses.filter((s) => s === 429)).toHaveLength(1_020);

      const over = await api.call('POST', '/queues/q/resume');
      expect(over.status).toBe(429);
      expect(over.headers.get('content-type')).toContain('application/problem+json');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(over.body.detail).toMatch(/too many unauthenticated requests/);
      // Reads with no token are refused by the same limit.
      expect((await api.call('GET', '/queues')).status).toBe(429);

      // The same address with a valid token is not throttled by anybody's refusals.
      expect((await api.call('POST', '/queues/q/resume', api.admin)).status).toBe(200);
      const audit = await api.call('GET', '/audit?page_size=1000', api.admin);
      expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(['resumeQueue', 'pauseQueue']);
      expect(await api.stores.connections.command.xlen(api.auditKey('refused'))).toBe(30);
    }, 60_000);
  });

  describe('path text', () => {
    let api: Api;
    beforeAll(async () => {
      api = await startApi('audit-escape', { principals: 100, refused: 100 }, 0);
    }, 30_000);
    afterAll(() => api?.close(), 30_000);

    it('is stored with newlines and escapes written out, so it cannot forge a line or a terminal escape', async () => {
      const forged = '/queues/x%0A2026-01-01T00:00:00Z%20admin-token%20deleteRoutine%1B%5B2J/pause';
      expect((await api.call('POST', forged, api.admin)).status).toBe(400);
      expect((await api.call('POST', forged)).status).toBe(401);
      const target = 'name=x\\n2026-01-01T00:00:00Z admin-token deleteRoutine\\x1b[2J';
      const audit = await api.call('GET', '/audit', api.admin);
      expect(audit.body.items[0]).toMatchObject({ token: 'admin-token', status: 400, target });
      const refused = await api.call('GET', '/audit?log=refused', api.admin);
      expect(refused.body.items[0]).toMatchObject({ token: 'anonymous', status: 401, target });
      const stored = [api.auditKey(), api.auditKey('refused')].map((key) =>
        api.stores.connections.command.xrange(key, '-', '+'),
      );
      const values = (await Promise.all(stored)).flat(3).filter((v): v is string => typeof v === 'string');
      expect(values).toContain(target);
      // eslint-disable-next-line no-control-regex -- no control character is stored
      expect(values.filter((v) => /[\u0000-\u001f\u007f]/.test(v))).toEqual([]);
    }, 30_000);
  });
});
