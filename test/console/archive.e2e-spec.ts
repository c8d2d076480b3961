import type { Browser, BrowserContext } from 'playwright-core';
import { ApiCluster } from '../api/support/api-cluster';
import { launchChromium, loggedIn as consoleLogin, type ConsoleSession } from './support/browser';

/**
 * Archiving from the console in a real browser against a real api: the routine page's action,
 * the list hiding archived routines unless filtered for them, and an admin-only control for a
 * system routine. What the console did is checked through the API.
 */
describe('web console: archive and unarchive (chromium, real api)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;

  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });
  const loggedIn = (role: 'operator' | 'admin') => consoleLogin(session(), role, api.tokens[role]).then((s) => s.page);

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-archive', { scheduler: false, worker: false }),
      launchChromium(),
    ]);
    const routine = (name: string, extra = {}) => ({
      name,
      jobType: 'noop',
      queue: 'default',
      trigger: { kind: 'interval', everyMs: 3_600_000 },
      ...extra,
    });
    const bundle = {
      queues: [{ name: 'default' }],
      routines: [routine('old-ticker'), routine('live-ticker'), routine('platform-sweep', { system: true })],
    };
    expect((await api.call('POST', '/apply', { body: bundle })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  it('archives from the routine page; the list hides it unless filtered for archived; unarchives', async () => {
    const page = await loggedIn('operator');
    await page.goto(ui('/routines/old-ticker'));
    await page.getByRole('button', { name: 'Archive old-ticker…' }).click();
    await page.getByRole('button', { name: 'Archive old-ticker', exact: true }).click();
    await page.getByRole('button', { name: 'Unarchive old-ticker' }).waitFor();
    expect((await api.call('GET', '/routines/old-ticker')).body).toMatchObject({
      status: 'archived',
      archive: { by: 'operator-token' },
    });
    // An archived routine offers no trigger or pause: the api refuses both.
    expect(await page.getByRole('button', { name: /Trigger|Pause/ }).count()).toBe(0);

    await page.goto(ui('/routines'));
    await page.getByRole('link', { name: 'live-ticker' }).waitFor();
    expect(await page.getByRole('link', { name: 'old-ticker' }).count()).toBe(0);
    await page.goto(ui('/routines?status=archived'));
    await page.getByRole('link', { name: 'old-ticker' }).waitFor();
    expect(await page.getByRole('link', { name: 'live-ticker' }).count()).toBe(0);

    await page.goto(ui('/routines/old-ticker'));
    await page.getByRole('button', { name: 'Unarchive old-ticker' }).click();
    await page.getByRole('button', { name: 'Archive old-ticker…' }).waitFor();
    expect((await api.call('GET', '/routines/old-ticker')).body.status).toBe('active');
    expect(errors).toEqual([]);
  }, 30_000);

  it('offers archiving a system routine to admins only, as the api allows', async () => {
    const operator = await loggedIn('operator');
    await operator.goto(ui('/routines/platform-sweep'));
    await operator.getByRole('button', { name: 'Trigger platform-sweep now' }).waitFor();
    expect(await operator.getByRole('button', { name: /Archive/ }).count()).toBe(0);
    const admin = await loggedIn('admin');
    await admin.goto(ui('/routines/platform-sweep'));
    await admin.getByRole('button', { name: 'Archive platform-sweep…' }).waitFor();
  }, 30_000);
});
