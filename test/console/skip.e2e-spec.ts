import type { Browser, BrowserContext } from 'playwright-core';
import { ApiCluster } from '../api/support/api-cluster';
import { launchChromium, loggedIn as consoleLogin, type ConsoleSession } from './support/browser';

const HOUR = 3_600_000;

/**
 * Skipping one slot from the routine page's next fires, in a real browser against a real api: the
 * skip and its undo reach the api, an excluded slot is marked and offers no skip, and the
 * routine's bounds and exclusions are shown.
 */
describe('web console: skip one slot (chromium, real api)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });
  // The next hours on the hour grid; the second one is excluded by a one-date calendar.
  const first = Math.ceil((Date.now() + 60_000) / HOUR) * HOUR;
  const excluded = new Date(first + HOUR);
  const iso = (ms: number) => new Date(ms).toISOString();

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-skip', { scheduler: false, worker: false }),
      launchChromium(),
    ]);
    const minute = `${excluded.getUTCMinutes()} ${excluded.getUTCHours()} ${excluded.getUTCDate()} ${excluded.getUTCMonth() + 1} *`;
    const bundle = {
      queues: [{ name: 'default' }],
      calendars: { 'quiet-hour': { cron: minute } },
      routines: [
        {
          name: 'hourly',
          jobType: 'noop',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: HOUR },
          endAt: iso(first + 100 * HOUR),
          exclude: ['quiet-hour'],
        },
      ],
    };
    expect((await api.call('POST', '/apply', { body: bundle })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  it('skips a slot from the next fires and undoes it; the excluded slot is marked and the exclusions shown', async () => {
    const page = (await consoleLogin(session(), 'operator', api.tokens.operator)).page;
    await page.goto(ui('/routines/hourly'));
    await page.getByText('excluded: quiet-hour').waitFor();
    await page.getByText('quiet-hour', { exact: true }).waitFor(); // the routine's exclusions
    expect(await page.getByRole('button', { name: `Skip hourly at ${iso(first + HOUR)}` }).count()).toBe(0);

    await page.getByRole('button', { name: `Skip hourly at ${iso(first)}` }).click();
    await page.getByRole('button', { name: `Undo the skip of hourly at ${iso(first)}` }).waitFor();
    expect((await api.call('GET', '/routines/hourly/skips')).body.items).toEqual([
      { slot: iso(first), by: 'operator-token', at: expect.any(String) },
    ]);
    await page.getByText('skipped-by-operator: by operator-token').waitFor();

    await page.getByRole('button', { name: `Undo the skip of hourly at ${iso(first)}` }).click();
    await page.getByRole('button', { name: `Skip hourly at ${iso(first)}` }).waitFor();
    expect((await api.call('GET', '/routines/hourly/skips')).body.items).toEqual([]);
    expect(errors).toEqual([]);
  }, 30_000);
});
