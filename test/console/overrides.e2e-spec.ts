import type { Browser, BrowserContext } from 'playwright-core';
import { startHttpOracle, type HttpOracle } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations } from './support/axe';
import { launchChromium, loggedIn as consoleLogin, type ConsoleSession } from './support/browser';

/**
 * A selector routine's panel on its console page, in a real browser against a real api and
 * scheduler (no worker: overrides stay pending): add an override, rank the candidates, clear it.
 * What the console did is checked through the API.
 */
describe('web console: a selector routine’s overrides and candidates (chromium, real api)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;

  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });
  const loggedIn = (role: 'viewer' | 'operator') => consoleLogin(session(), role, api.tokens[role]).then((s) => s.page);

  beforeAll(async () => {
    oracle = await startHttpOracle({
      answer: (path) =>
        path === '/candidates'
          ? {
              json: [
                { key: 'docs', band: 2, stalenessSec: 150 },
                { key: 'critic', band: 1, stalenessSec: 30 },
              ],
            }
          : undefined,
    });
    [api, browser] = await Promise.all([
      ApiCluster.start('console-overrides', { worker: false, policy: { queues: [{ name: 'default' }], routines: [] } }),
      launchChromium(),
    ]);
    const body = {
      name: 'metas',
      jobType: 'noop',
      queue: 'default',
      status: 'paused',
      trigger: { kind: 'interval', everyMs: 1000 },
      selector: { provider: 'http.candidates', args: { url: `${oracle.url}/candidates` } },
    };
    expect((await api.call('POST', '/routines', { as: 'operator', body })).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await oracle?.close();
  }, 30_000);

  it('adds an override, ranks the candidates with it pending, and clears it', async () => {
    const page = await loggedIn('operator');
    await page.goto(ui('/routines/metas'));
    await page.getByRole('heading', { name: 'Candidates and overrides' }).waitFor();
    await page.getByText('No pending overrides.').waitFor();

    await page.getByRole('form', { name: 'Add an override to metas' }).getByLabel('Key').fill('docs');
    await page.getByRole('button', { name: 'Add override' }).click();
    const row = page.getByRole('table', { name: 'Pending overrides of metas' }).getByRole('row', { name: /docs/ });
    await row.waitFor();
    const pending = (await api.call('GET', '/routines/metas/overrides', { as: 'viewer' })).body.items;
    expect(pending).toEqual([expect.objectContaining({ key: 'docs', createdBy: 'operator-token' })]);

    await page.getByRole('button', { name: 'Rank candidates now' }).click();
    const ranking = page.getByRole('table', { name: 'Candidates as the next tick would rank them' });
    await ranking.waitFor();
    expect(await ranking.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^1\s+critic\s+1\s+30 s\s+30 s\s+chosen$/),
      expect.stringMatching(/^2\s+docs\s+2\s+150 s\s+150 s\s+pending-override$/),
    ]);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Clear overrides not started' }).click();
    await page.getByText('No pending overrides.').waitFor();
    expect((await api.call('GET', `/runs/${pending[0].runId}`, { as: 'viewer' })).body.status).toBe('canceled');
    expect(errors).toEqual([]);
  }, 30_000);

  it('shows a viewer the pending overrides but no controls', async () => {
    const page = await loggedIn('viewer');
    await page.goto(ui('/routines/metas'));
    await page.getByRole('heading', { name: 'Candidates and overrides' }).waitFor();
    await page.getByText(/No pending overrides/).waitFor();
    expect(await page.getByRole('button', { name: /override|Rank/ }).count()).toBe(0);
  }, 30_000);
});
