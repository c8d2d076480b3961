import type { Browser, BrowserContext, Page } from 'playwright-core';
import { waitFor } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations } from './support/axe';
import { launchChromium, loggedIn, type ConsoleSession } from './support/browser';

/**
 * A flow on the run page, in a real browser against a real api and worker: a parent lists its
 * children as a tree (job type, queue, status, a link each; a deeper level opened on demand) and
 * how many it still waits for; a child links its parent and says what its failure does there; a
 * parent parked for a child names and links that child. axe finds nothing serious, light and dark.
 */
describe('web console: flows (chromium, real api + worker)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-flows', {
        policy: {
          queues: [
            { name: 'default', maxAttempts: 1 },
            { name: 'etl', maxAttempts: 1 },
            // A leaf here waits for an operator's decision: its parent (and theirs) wait with it.
            { name: 'gated', approval: { required: true } },
          ],
        },
      }),
      launchChromium(),
    ]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  const noop = { jobType: 'noop', payload: {} };
  // Nothing listens on port 9 of loopback: its one attempt fails and the run is parked.
  const down = { jobType: 'http.request', payload: { url: 'http://127.0.0.1:9/down' } };
  const enqueueFlow = async (runs: unknown[]) => {
    const res = await api.call('POST', '/flows', { as: 'operator', body: { runs } });
    if (res.status !== 201) throw new Error(`POST /flows: ${res.status} ${res.text}`);
    return res.body.runs as string[];
  };
  const statusOf = async (id: string) => (await api.call('GET', `/runs/${id}`, { as: 'viewer' })).body.status as string;
  const settle = (id: string, status: string) =>
    waitFor(`run ${id} to be ${status}`, async () => (await statusOf(id)) === status, { timeoutMs: 20_000 });
  const approve = async (id: string) =>
    expect((await api.call('POST', `/runs/${id}/approve`, { as: 'operator', body: {} })).status).toBe(200);
  const axeClean = async (page: Page) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }
  };
  /** The item of `list` whose own link is `id`. */
  const item = (page: Page, parent: string, id: string) =>
    page
      .getByRole('list', { name: `children of ${parent}` })
      .getByRole('listitem')
      .filter({ has: page.getByRole('link', { name: id, exact: true }) })
      .first();

  it('shows a waiting parent its children as a tree with statuses and links, followed live; a child links its parent', async () => {
    const [top, mid, leaf, gated, ignored] = await enqueueFlow([
      noop,
      { ...noop, queue: 'etl', parent: 0 },
      { ...noop, queue: 'gated', parent: 1 },
      { ...noop, queue: 'gated', parent: 0 },
      { ...down, queue: 'etl', parent: 0, onFailure: 'ignore' },
    ]);
    await Promise.all([
      settle(ignored!, 'parked'),
      settle(leaf!, 'awaiting-approval'),
      settle(gated!, 'awaiting-approval'),
    ]);

    const page = (await loggedIn(session(), 'viewer', api.tokens.viewer)).page;
    await page.goto(ui(`/runs/${top}`));
    const children = page.getByTestId('run-children');
    await children.getByText('waiting for 2 of 3 children').waitFor();
    expect(
      await page
        .getByRole('list', { name: `children of ${top}` })
        .getByRole('listitem')
        .count(),
    ).toBe(3);
    await item(page, top!, mid!).getByText('noop on etl queued').waitFor();
    await item(page, top!, gated!).getByText('noop on gated awaiting-approval').waitFor();
    await item(page, top!, ignored!).getByText('http.request on etl parked').waitFor();
    await axeClean(page);

    // A child's change reaches the page while the parent's own status stays queued.
    await approve(gated!);
    await children.getByText('waiting for 1 of 3 children').waitFor();
    await item(page, top!, gated!).getByText('noop on gated succeeded').waitFor();
    expect(await page.getByTestId('run-status').getByText('queued').count()).toBe(1);

    // A leaf has nothing to open and an ignored child says so; the next level is read when opened.
    expect(await page.getByRole('button', { name: `of ${gated}` }).count()).toBe(0);
    await item(page, top!, ignored!).getByText('(its failure is ignored)').waitFor();
    await page.getByRole('button', { name: `1 child of ${mid}` }).click();
    await item(page, mid!, leaf!).getByText('noop on gated awaiting-approval').waitFor();
    await axeClean(page);

    // Approved, the leaf runs, then its parent, then the top: the opened level follows too.
    await approve(leaf!);
    await item(page, mid!, leaf!).getByText('noop on gated succeeded').waitFor();
    await page.getByTestId('run-status').getByText('succeeded').waitFor({ timeout: 20_000 });
    await item(page, top!, mid!).getByText('noop on etl succeeded').waitFor();
    await children.getByText('3 children').first().waitFor();
    expect(await children.getByText('waiting for').count()).toBe(0);

    await page.getByRole('link', { name: ignored, exact: true }).click();
    await page.getByRole('heading', { name: `Run ${ignored}` }).waitFor();
    const parent = page.getByTestId('run-parent');
    await parent.getByText('its failure is ignored').waitFor();
    await axeClean(page);
    await parent.getByRole('link', { name: top, exact: true }).click();
    await page.getByRole('heading', { name: `Run ${top}` }).waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  it("keeps a parent's newest read when an older read of it answers last", async () => {
    const [top, first, second] = await enqueueFlow([
      noop,
      { ...noop, queue: 'gated', parent: 0 },
      { ...noop, queue: 'gated', parent: 0 },
    ]);
    await Promise.all([settle(first!, 'awaiting-approval'), settle(second!, 'awaiting-approval')]);
    const page = (await loggedIn(session(), 'viewer', api.tokens.viewer)).page;
    await page.goto(ui(`/runs/${top}`));
    const children = page.getByTestId('run-children');
    await children.getByText('waiting for 2 of 2 children').waitFor();

    // The first re-read of the parent (on its first child's changes) answers only when let go, with
    // what was true when it was asked: a slow answer overtaken by the next.
    let held: Promise<void> | undefined;
    let letGo!: () => void;
    const answered = new Promise<void>((resolve) => {
      void page.route(`**/api/v1/runs/${top}`, async (route) => {
        if (held) return route.continue();
        held = new Promise((r) => (letGo = r));
        const stale = await route.fetch();
        await held;
        await route.fulfill({ response: stale });
        resolve();
      });
    });
    await approve(first!);
    await waitFor('a re-read of the parent held', async () => held !== undefined, { timeoutMs: 20_000 });
    await approve(second!);
    await settle(top!, 'succeeded');
    await children.getByText('2 children').first().waitFor({ timeout: 20_000 });
    letGo();
    await answered;
    // Two frames for the late answer to be drawn, were it kept.
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    expect(await children.getByText(/waiting for/).count()).toBe(0);
    await children.getByText('2 children').first().waitFor({ timeout: 1_000 });
    expect(errors).toEqual([]);
  }, 60_000);

  it('names and links the child whose parking parked its parent', async () => {
    const [top, failed, other] = await enqueueFlow([
      noop,
      { ...down, queue: 'etl', parent: 0 },
      { ...noop, parent: 0 },
    ]);
    await settle(top!, 'parked');

    const page = (await loggedIn(session(), 'viewer', api.tokens.viewer)).page;
    await page.goto(ui(`/runs/${top}`));
    const named = page.getByTestId('run-failed-child');
    await named.getByText('http.request on etl').waitFor();
    await item(page, top!, failed!).getByText('parked its parent').waitFor();
    expect(await item(page, top!, other!).getByText('parked its parent').count()).toBe(0);
    await page.getByText(`child run ${failed} (http.request, queue etl) failed`).waitFor();
    await axeClean(page);

    await named.getByRole('link', { name: failed, exact: true }).click();
    await page.getByRole('heading', { name: `Run ${failed}` }).waitFor();
    await page.getByTestId('run-parent').getByText('its failure parks the parent').waitFor();
    await page.getByTestId('run-parent').getByRole('link', { name: top, exact: true }).waitFor();
    expect(errors).toEqual([]);
  }, 60_000);
});
