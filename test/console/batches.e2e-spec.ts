import type { Browser, BrowserContext } from 'playwright-core';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations } from './support/axe';
import { launchChromium, loggedIn, type ConsoleSession } from './support/browser';

/** The batches pages in a real browser against a real api and worker: the list and a batch followed live. */
describe('web console: batches (chromium, real api + worker)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-batches', { policy: { queues: [{ name: 'default', maxAttempts: 1 }] } }),
      launchChromium(),
    ]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  it('lists a batch with its progress bar and follows it to complete, parked run counted; axe clean light and dark', async () => {
    const res = await api.call('POST', '/batches', {
      as: 'operator',
      body: {
        runs: [
          ...Array.from({ length: 3 }, () => ({ jobType: 'sleep', payload: { ms: 2000 } })),
          // No worker has a handler for it: its one attempt fails and the run is parked.
          { jobType: 'nobody.handles', payload: {} },
        ],
        onComplete: { queue: 'default', jobType: 'noop' },
      },
    });
    expect(res.status).toBe(201);
    const id = res.body.batchId as string;
    const page = (await loggedIn(session(), 'viewer', api.tokens.viewer)).page;
    await page.goto(ui('/batches'));
    const bar = page.getByRole('progressbar', { name: new RegExp(`batch ${id}: \\d of 4 runs settled`) });
    await bar.waitFor({ timeout: 10_000 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }

    await page.getByRole('link', { name: id }).click();
    const progress = page.getByTestId('batch-progress');
    await progress.getByText('4/4').waitFor({ timeout: 20_000 });
    await progress.getByText('1 parked').waitFor();
    await page.getByTestId('batch-fields').getByText('complete', { exact: true }).waitFor();
    await page.getByRole('link', { name: `${id}.complete` }).waitFor({ timeout: 10_000 });
    expect(await page.getByRole('list', { name: 'runs of the batch' }).getByRole('listitem').count()).toBe(4);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }
    // A run of the batch links back to it.
    await page.getByRole('list', { name: 'runs of the batch' }).getByRole('link').first().click();
    await page.getByRole('link', { name: id }).click();
    await page.getByRole('heading', { name: `Batch ${id}` }).waitFor();
    expect(errors).toEqual([]);
  }, 60_000);
});
