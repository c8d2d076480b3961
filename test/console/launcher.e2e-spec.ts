import type { Browser, BrowserContext } from 'playwright-core';
import { ApiCluster } from '../api/support/api-cluster';
import { launchChromium, loggedIn as consoleLogin, type ConsoleSession } from './support/browser';

/**
 * The routine page's launcher panel in a real browser against a real api: a routine the launcher
 * disabled shows its failures, last error and reason, and an operator's Enable lifts it (checked
 * through the API). The disable is written as the scheduler's dispatcher writes it.
 */
describe('web console: launcher health and enable (chromium, real api)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-launcher', { scheduler: false, worker: false }),
      launchChromium(),
    ]);
    const routine = {
      name: 'gated',
      jobType: 'noop',
      queue: 'default',
      trigger: { kind: 'interval', everyMs: 60_000 },
    };
    expect(
      (await api.call('POST', '/apply', { body: { queues: [{ name: 'default' }], routines: [routine] } })).status,
    ).toBe(200);
    await api.cluster.routines.advanceCursor('gated', undefined, {
      consecutiveFailures: 5,
      disabledReason: 'launch failed 5 times in a row (maxLaunchFailures 5); last error: orders db down',
      disabledAt: Date.now() - 60_000,
      lastLaunchError: 'orders db down',
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  it('shows the failures and the reason, and Enable re-enables the routine', async () => {
    const page = (await consoleLogin(session(), 'operator', api.tokens.operator)).page;
    await page.goto(ui('/routines/gated'));
    const panel = page.getByRole('region', { name: 'Launcher health' });
    await panel.getByText('orders db down', { exact: true }).waitFor();
    expect(await panel.locator('[data-launcher="failures"]').textContent()).toBe('5');
    expect(await panel.locator('[data-launcher="reason"]').textContent()).toMatch(/launch failed 5 times in a row/);
    await panel.getByRole('button', { name: 'Enable gated' }).click();
    await panel.getByText('Healthy: no launch failures in a row.').waitFor();
    expect((await api.call('GET', '/routines/gated')).body).toMatchObject({
      disabledReason: null,
      launcher: { consecutiveFailures: 0, lastError: null },
    });
    expect(errors).toEqual([]);
  }, 30_000);
});
