import type { Browser, BrowserContext } from 'playwright-core';
import type { NewRun } from '@drover/store';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations, type AxeFinding } from './support/axe';
import { launchChromium, loggedIn as consoleLogin, type ConsoleSession } from './support/browser';

/**
 * Finding a run on the console's runs page, in a real browser against a real api: the search and
 * the window go into the page's URL (a search can be shared), housekeeping runs show only when
 * asked, and the page stays accessible in light and dark.
 */
/** What a policy file would hold; applied through the api (no scheduler here to apply a file). */
const BUNDLE = {
  queues: [{ name: 'default' }],
  routines: ['billing', 'housekeeping'].map((name) => ({
    name,
    jobType: 'noop',
    queue: 'default',
    trigger: { kind: 'manual' },
    system: name === 'housekeeping',
  })),
};

describe('web console: find a run (chromium, real api)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });
  const run = (id: string, routine: string, payload: unknown): NewRun => ({
    id,
    routine,
    jobType: 'noop',
    queue: 'default',
    source: 'api',
    scheduledFor: null,
    payload,
  });

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-find', {
        scheduler: false,
        worker: false,
      }),
      launchChromium(),
    ]);
    expect((await api.call('POST', '/apply', { body: BUNDLE })).status).toBe(200);
    const { runs } = api.cluster;
    await runs.enqueue(run('b-1', 'billing', { customer: { id: 42 } }));
    await runs.enqueue(run('b-2', 'billing', { customer: { id: 7 } }));
    await runs.enqueue(run('h-1', 'housekeeping', { customer: { id: 42 } }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    await browser?.close();
    await api?.close();
  }, 30_000);

  it('searches from the filter bar into the URL, shows housekeeping on demand, opens from a shared link', async () => {
    const { page, context } = await consoleLogin(session(), 'viewer', api.tokens.viewer);
    const rows = () => page.locator('tbody tr th').allInnerTexts();
    await page.goto(ui('/runs'));
    await page.getByRole('link', { name: 'b-2' }).waitFor();
    expect(await rows()).toEqual(['b-2', 'b-1']);

    await page.getByLabel('Search').fill('customer.id=42');
    await page.getByLabel('Since').fill('1h');
    await page.getByLabel('Since').press('Enter');
    await page.waitForURL(/search=customer\.id%3D42/);
    await page.getByRole('link', { name: 'b-2' }).waitFor({ state: 'detached' });
    expect(await rows()).toEqual(['b-1']);
    expect(new URL(page.url()).searchParams.get('since')).toBe('1h');

    await page.getByLabel('Housekeeping runs').check();
    await page.getByRole('link', { name: 'h-1' }).waitFor();
    expect(await rows()).toEqual(['h-1', 'b-1']);

    // The address is the search: a colleague opening it sees the same runs.
    const shared = await context.newPage();
    await shared.goto(page.url());
    await shared.getByRole('link', { name: 'h-1' }).waitFor();
    expect(await shared.getByLabel('Search').inputValue()).toBe('customer.id=42');
    await shared.close();

    // A bad bound is the api's 400, shown on the page.
    await page.getByLabel('Since').fill('yesterday');
    await page.getByLabel('Since').press('Enter');
    await page.getByRole('alert').filter({ hasText: 'query.since' }).waitFor();

    const found: Record<string, AxeFinding[]> = {};
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(ui('/runs?search=customer.id%3D42&include=system'));
      await page.getByRole('link', { name: 'h-1' }).waitFor();
      const v = await seriousViolations(page);
      if (v.length) found[scheme] = v;
    }
    expect(found).toEqual({});
    // The browser logs the bad bound's 400 answer as a failed load; nothing else went wrong.
    expect(errors.filter((e) => !e.includes('the server responded with a status of 400'))).toEqual([]);
  }, 60_000);
});
