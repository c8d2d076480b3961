import type { Browser, BrowserContext } from 'playwright-core';
import { waitFor } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations } from './support/axe';
import { launchChromium, loggedIn as consoleLogin, type ConsoleSession } from './support/browser';

/**
 * The overview's run totals and charts in a real browser against a real api, scheduler and worker: what it
 * shows is checked against `GET /stats`, the range and queue pickers redraw the charts, and axe
 * finds nothing serious in light or dark.
 */
describe('web console: the overview’s totals and charts (chromium, real api + scheduler + worker)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-overview', {
        policy: {
          queues: [{ name: 'default' }, { name: 'flaky', maxAttempts: 1 }],
          routines: [],
        },
      }),
      launchChromium(),
    ]);
    const job = (queue: string, jobType: string, payload: unknown) =>
      api.call('POST', '/jobs', { as: 'operator', body: { queue, jobType, payload } });
    for (let i = 0; i < 3; i++) expect((await job('default', 'noop', {})).status).toBe(201);
    // Nothing listens on port 9 of loopback: the call fails, and with one attempt the run parks.
    expect((await job('flaky', 'http.request', { url: 'http://127.0.0.1:9/down' })).status).toBe(201);
    await waitFor(
      'the totals of 4 settled runs',
      async () => (await api.call('GET', '/stats?window=1h')).body.totals.processed === 4,
      { timeoutMs: 20_000, intervalMs: 200 },
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  it('shows 1 h and 24 h totals, charts with axes over a chosen range and queue, accessible light and dark', async () => {
    const { page } = await consoleLogin(session(), 'viewer', api.tokens.viewer);
    await page.goto(ui('/'));
    const processed = page.getByTestId('total-processed');
    await processed.getByText('4 in 24 h').waitFor();
    expect(await processed.locator('.big').innerText()).toMatch(/^4\s+in 1 h$/);
    expect(await page.getByTestId('total-parked').locator('.big').innerText()).toMatch(/^1\s+in 1 h$/);
    // Per queue: 1 h / 24 h.
    const flaky = page.getByRole('row', { name: /^flaky/ });
    expect((await flaky.locator('td.num').allInnerTexts()).slice(-3)).toEqual(['1 / 1', '1 / 1', '1 / 1']);

    await page.getByRole('img', { name: '4 attempts processed by all queues in the last 1 h' }).waitFor();
    const throughput = page.locator('figure', { hasText: 'Throughput (per minute)' });
    // Axes with values: 0 and a round top on y, time ago on x.
    const labels = await throughput.locator('svg text').allTextContents();
    expect(labels).toEqual(expect.arrayContaining(['0', 'now', expect.stringMatching(/ago$/)]));

    await page.getByRole('button', { name: '24 h' }).click();
    expect(await page.getByRole('button', { name: '24 h' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('img', { name: '4 attempts processed by all queues in the last 24 h' }).waitFor();
    await page.locator('figure', { hasText: 'Throughput (per 15 min)' }).waitFor();
    await page.getByRole('combobox', { name: /^queue/ }).selectOption('flaky');
    await page
      .getByRole('img', { name: '1 attempts failed and 1 runs parked in queue flaky in the last 24 h' })
      .waitFor();

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }
    expect(errors).toEqual([]);
  }, 60_000);
});
