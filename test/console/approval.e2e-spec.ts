import type { Browser, BrowserContext } from 'playwright-core';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations } from './support/axe';
import { launchChromium, loggedIn, type ConsoleSession } from './support/browser';

/**
 * Approving and rejecting a run awaiting approval from its page, in a real browser against a real
 * api: an operator sees Approve and Reject (a viewer does not), the decision reaches the api with
 * who and why, the runs list filters by `awaiting-approval`; axe finds nothing serious, light and dark.
 */
describe('web console: approval gates (chromium, real api)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-approval', { scheduler: false, worker: false }),
      launchChromium(),
    ]);
    const bundle = {
      queues: [{ name: 'gated', approval: { required: true, expiresAfterMs: 3_600_000 } }],
      routines: [],
    };
    expect((await api.call('POST', '/apply', { body: bundle })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  const enqueue = async () => {
    const res = await api.call('POST', '/jobs', {
      as: 'operator',
      body: { jobType: 'noop', queue: 'gated', payload: {} },
    });
    expect(res.status).toBe(201);
    return res.body.runId as string;
  };

  it('lets an operator approve one run and reject another; a viewer sees no buttons', async () => {
    const [a, b] = [await enqueue(), await enqueue()];
    const viewer = (await loggedIn(session(), 'viewer', api.tokens.viewer)).page;
    await viewer.goto(ui(`/runs/${a}`));
    await viewer.getByTestId('run-approval').filter({ hasText: 'waiting' }).waitFor();
    expect(await viewer.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    const page = (await loggedIn(session(), 'operator', api.tokens.operator)).page;
    await page.goto(ui('/runs?status=awaiting-approval'));
    await page.getByRole('link', { name: a }).waitFor();
    await page.getByRole('link', { name: b }).waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }

    await page.goto(ui(`/runs/${a}`));
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }
    await page.getByLabel('reason for the approval decision').fill('checked');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('run-approval').filter({ hasText: 'approved by operator-token' }).waitFor();
    expect((await api.call('GET', `/runs/${a}`)).body).toMatchObject({
      status: 'queued',
      approval: { state: 'approved', by: 'operator-token', reason: 'checked' },
    });

    await page.goto(ui(`/runs/${b}`));
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByTestId('run-approval').filter({ hasText: 'rejected by operator-token' }).waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect((await api.call('GET', `/runs/${b}`)).body).toMatchObject({ status: 'canceled', reason: 'rejected' });
    expect(errors).toEqual([]);
  }, 60_000);
});
