import type { Browser, BrowserContext } from 'playwright-core';
import { waitFor } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations } from './support/axe';
import { launchChromium, loggedIn, type ConsoleSession } from './support/browser';

/**
 * The run page's logs panel in a real browser against a real api and worker: the built-in `sleep`
 * writes a line a second; the panel shows them while the run is running and is complete after it.
 */
describe("web console: a run's log (chromium, real api + worker)", () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-logs', { policy: { queues: [{ name: 'default', maxAttempts: 1 }] } }),
      launchChromium(),
    ]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  it('follows the lines live while the run runs, then shows them complete; axe clean light and dark', async () => {
    // Long enough that a page loaded slowly on a busy machine still meets the run running: a run
    // that ended first sends its whole log at once and the panel never follows it.
    const res = await api.call('POST', '/jobs', {
      as: 'operator',
      body: { jobType: 'sleep', payload: { ms: 6000 }, queue: 'default' },
    });
    expect(res.status).toBe(201);
    const id = res.body.runId as string;
    const page = (await loggedIn(session(), 'viewer', api.tokens.viewer)).page;
    await page.goto(ui(`/runs/${encodeURIComponent(id)}`));
    const log = page.getByRole('log', { name: `log of run ${id}` });
    await log.getByText('sleeping 6000 ms').waitFor({ timeout: 10_000 });
    await page.getByText('following live').first().waitFor();
    const { body } = await api.call('GET', `/runs/${id}`, { as: 'viewer' });
    expect(body.status).toBe('running'); // the first line showed before the run ended

    await log.getByText('slept 6000 ms', { exact: true }).waitFor({ timeout: 20_000 });
    await page.getByText('complete', { exact: true }).waitFor();
    expect(await log.locator('.log-line').allInnerTexts()).toEqual([
      expect.stringMatching(/UTC sleeping 6000 ms$/),
      ...[1, 2, 3, 4, 5].map((s) =>
        expect.stringMatching(new RegExp(`UTC slept ${s}000 of 6000 ms \\{"percent":${Math.floor((s * 100) / 6)}\\}$`)),
      ),
      expect.stringMatching(/UTC slept 6000 ms$/),
    ]);
    await waitFor('the run succeeded', async () => (await api.call('GET', `/runs/${id}`)).body.status === 'succeeded');

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }
    expect(errors).toEqual([]);
  }, 60_000);
});
