import type { Browser, BrowserContext } from 'playwright-core';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations } from './support/axe';
import { launchChromium, loggedIn, type ConsoleSession } from './support/browser';

/**
 * Per-key concurrency in the console, in a real browser against a real api (no worker, so runs of a
 * key beyond its limit stay held): the queues page shows the per-key limit and the busiest keys, a
 * held run's page its key and that it waits for a place; axe finds nothing serious, light and dark.
 */
describe('web console: per-key concurrency (chromium, real api)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-keyed', { scheduler: false, worker: false }),
      launchChromium(),
    ]);
    const bundle = {
      queues: [{ name: 'tenants', concurrencyKey: { source: 'payload.tenant', limit: 2 } }],
      routines: [],
    };
    expect((await api.call('POST', '/apply', { body: bundle })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  it("shows a queue's keys and a held run's key", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.call('POST', '/jobs', {
        as: 'operator',
        body: { jobType: 'noop', queue: 'tenants', payload: { tenant: 'acme' } },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.runId as string);
    }
    const page = (await loggedIn(session(), 'viewer', api.tokens.viewer)).page;
    await page.goto(ui('/queues'));
    await page.getByTestId('queue-keys').filter({ hasText: 'acme: 2 running · 3 waiting' }).waitFor();
    expect(await page.getByTestId('queue-keys').textContent()).toContain('2 per key (payload.tenant)');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }
    await page.goto(ui(`/runs/${ids[4]}`));
    await page.getByTestId('run-key').filter({ hasText: 'acme — waiting for a place' }).waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }
    await page.goto(ui(`/runs/${ids[0]}`));
    await page.getByTestId('run-key').filter({ hasText: 'acme' }).waitFor();
    expect(await page.getByTestId('run-key').textContent()).not.toContain('waiting');
    expect(errors).toEqual([]);
  }, 60_000);
});
