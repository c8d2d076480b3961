import type { Browser, BrowserContext, Route } from 'playwright-core';
import { waitFor } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations, type AxeFinding } from './support/axe';
import { launchChromium, trackedPage, loggedIn as consoleLogin, type ConsoleSession } from './support/browser';

/**
 * The web console in a real browser (Debian's chromium) against a real api, scheduler and worker
 * with tokens: login, live run status over SSE, pause, bulk replay of parked runs, a viewer's
 * read-only console, no console errors, and an axe scan of every main page. What the console did
 * is checked through the API, never by what the page says alone.
 */
describe('web console (chromium, real api + scheduler + worker)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];

  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;

  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });
  const loggedIn = (role: 'viewer' | 'operator' | 'admin') => consoleLogin(session(), role, api.tokens[role]);

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console', {
        policy: {
          queues: [
            { name: 'default', concurrency: 5 },
            { name: 'flaky', concurrency: 5, maxAttempts: 1 },
            { name: 'ticks', concurrency: 5 },
          ],
          routines: [
            {
              name: 'on-demand',
              jobType: 'sleep',
              queue: 'default',
              trigger: { kind: 'manual' },
              // Long enough that a loaded machine still shows the run's progress while it runs.
              payload: { ms: 5000 },
            },
            { name: 'ticker', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 3_600_000 } },
            // A slot every second on its own queue: the routine page's slot ledger strip fills up.
            { name: 'every-second', jobType: 'noop', queue: 'ticks', trigger: { kind: 'interval', everyMs: 1000 } },
            // Nothing listens on port 9 of loopback: every call fails, and with one attempt the run parks.
            {
              name: 'broken-call',
              jobType: 'http.request',
              queue: 'flaky',
              trigger: { kind: 'manual' },
              payload: { url: 'http://127.0.0.1:9/down' },
            },
          ],
        },
      }),
      launchChromium(),
    ]);
    for (let i = 0; i < 3; i++) {
      expect((await api.call('POST', '/routines/broken-call/trigger', { body: {} })).status).toBe(201);
    }
    await waitFor('3 parked runs', async () => (await api.call('GET', '/queues/flaky')).body.counts.parked === 3, {
      timeoutMs: 20_000,
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  it('logs in with a token into an httpOnly SameSite=Strict cookie, never keeping the token in the page', async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await trackedPage(context, errors);
    await page.goto(ui('/routines'));
    await page.getByLabel('API token').fill('not-a-token');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: '401' }).waitFor();
    errors.length = 0; // the refused login is a 401 the browser reports; it is what this step tests

    await page.getByLabel('API token').fill(api.tokens.operator);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('link', { name: 'on-demand' }).waitFor();
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'drover_session', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie!.value).not.toContain(api.tokens.operator);
    expect(
      await page.evaluate('[document.cookie, JSON.stringify(localStorage), JSON.stringify(sessionStorage)]'),
    ).toEqual(['', '{}', '{}']);
    // The session is the token's: the api answers the cookie as operator-token.
    const who = await context.request.get(`${api.url}/session`);
    expect(await who.json()).toMatchObject({
      authenticated: true,
      name: 'operator-token',
      role: 'operator',
      auth: 'session',
    });
  }, 30_000);

  it('triggers a routine and shows its run go running → succeeded live, without a reload', async () => {
    const { page } = await loggedIn('operator');
    await page.getByRole('link', { name: 'Routines' }).click();
    await page.evaluate('window.marker = 1');
    await page.getByRole('button', { name: 'Trigger on-demand now' }).click();
    await page.waitForURL(/\/ui\/runs\/[^/]+$/);
    const status = page.getByTestId('run-status');
    await status.getByText('running', { exact: true }).waitFor({ timeout: 15_000 });
    // While it runs, the handler's progress is a labelled bar (the sleep job reports a percent).
    await page.getByRole('progressbar', { name: /^progress \d+ %$/ }).waitFor({ timeout: 15_000 });
    await status.getByText('succeeded', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate('window.marker')).toBe(1); // the same page: no reload happened
    // Settled: no stale progress under the badge, times one way (UTC, with the zone).
    expect(await page.getByTestId('run-progress').count()).toBe(0);
    expect(await page.locator('dl.facts').innerText()).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);

    const runId = decodeURIComponent(page.url().split('/').pop()!);
    const run = await api.call('GET', `/runs/${encodeURIComponent(runId)}`);
    expect(run.body).toMatchObject({
      routine: 'on-demand',
      status: 'succeeded',
      source: 'manual',
      createdBy: 'operator-token',
    });
    // Two clocks stamp a run (the cluster's creates it, the worker's starts it): never out of order.
    const at = (k: string) => Date.parse(run.body[k] as string);
    expect(at('startedAt')).toBeGreaterThanOrEqual(at('createdAt'));
    expect(at('finishedAt') - at('startedAt')).toBeGreaterThanOrEqual(1_400);
  }, 30_000);

  it('pauses a routine with a note; the api has it paused, and the audit log names the token behind the session', async () => {
    const { page } = await loggedIn('operator');
    await page.goto(ui('/routines'));
    await page.getByRole('button', { name: 'Pause ticker…' }).click();
    await page.getByLabel('Note').fill('maintenance window');
    // Until reads what the CLI's --until reads: a typo is refused in the form, `tomorrow 09:00` is UTC.
    await page.getByLabel('Until').fill('next week');
    await page.getByRole('button', { name: 'Pause ticker', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Until: "next week" is not' }).waitFor();
    const asked = Date.now();
    await page.getByLabel('Until').fill('tomorrow 09:00');
    await page.getByText(/^resumes \d{4}-\d{2}-\d{2} 09:00:00 UTC$/).waitFor();
    await page.getByRole('button', { name: 'Pause ticker', exact: true }).click();
    await page.locator('[data-routine="ticker"]').getByText('“maintenance window”').waitFor();

    const routine = await api.call('GET', '/routines/ticker');
    expect(routine.body).toMatchObject({ status: 'paused', pause: { note: 'maintenance window' } });
    // "Tomorrow" as of the form: either side of a midnight the test may have straddled.
    const nine = [asked, Date.now()].map((t) =>
      Date.parse(`${new Date(t + 86_400_000).toISOString().slice(0, 10)}T09:00:00Z`),
    );
    expect(nine).toContain(Date.parse(routine.body.pause.until));
    const audit = await api.call('GET', '/audit?page_size=20');
    expect(audit.body.items).toContainEqual(
      expect.objectContaining({ action: 'pauseRoutine', target: 'name=ticker', token: 'operator-token', status: 200 }),
    );
  }, 30_000);

  it('replays every parked run matching a filter: a dry-run count, then the operation to the end', async () => {
    const { page } = await loggedIn('operator');
    await page.goto(ui('/parked?queue=flaky'));
    await page.getByText('3×').waitFor();
    await page.getByRole('button', { name: 'Replay matching…' }).click();
    await page.getByTestId('dry-run').getByText('3 parked runs match.').waitFor();
    await page.getByRole('button', { name: 'Replay 3' }).click();
    const op = page.getByTestId('operation');
    await op.getByText(/replay done: 3 done/).waitFor({ timeout: 20_000 });
    const bar = op.locator('progress');
    expect([await bar.getAttribute('value'), await bar.getAttribute('max')]).toEqual(['3', '3']);

    const runs = await api.call('GET', '/runs?queue=flaky&page_size=100');
    const replays = (runs.body.items as { replayOf?: string; source: string }[]).filter((r) => r.replayOf);
    expect(replays).toHaveLength(3);
    expect(replays.every((r) => r.source === 'replay')).toBe(true);
  }, 30_000);

  it("follows a bulk operation to its end when its last event arrives while the page's first read of it is in flight", async () => {
    // The replays of the step before fail again and park: three parked runs to replay once more.
    await waitFor(
      'the replays parked again',
      async () => (await api.call('GET', '/queues/flaky')).body.counts.parked === 3,
      {
        timeoutMs: 20_000,
      },
    );
    const { page } = await loggedIn('operator');
    // Two runs a second: the operation is still running when the page first reads it.
    await page.route('**/api/v1/queues/flaky/parked/replay', (route) =>
      route.continue({ postData: JSON.stringify({ ...route.request().postDataJSON(), ratePerSecond: 2 }) }),
    );
    // That first read answers only once the operation has ended and its last event has reached the page.
    let held = 0;
    await page.route('**/api/v1/operations/*', async (route) => {
      if (held++ > 0) return route.continue();
      const early = await route.fetch();
      const id = decodeURIComponent(new URL(route.request().url()).pathname.split('/').pop()!);
      expect((await early.json()).status).toBe('running');
      await waitFor(
        'the operation to end',
        async () => (await api.call('GET', `/operations/${id}`)).body.status === 'done',
        {
          timeoutMs: 20_000,
        },
      );
      await new Promise((r) => setTimeout(r, 1_500));
      await route.fulfill({ response: early });
    });
    await page.goto(ui('/parked?queue=flaky'));
    await page.getByRole('button', { name: 'Replay matching…' }).click();
    await page.getByRole('button', { name: 'Replay 3' }).click();
    const op = page.getByTestId('operation');
    await op.getByText(/replay done: 3 done/).waitFor({ timeout: 20_000 });
    // The read held back answered last, and did not take the page back to "running".
    await page.waitForTimeout(2_000);
    expect(held).toBeGreaterThanOrEqual(2);
    expect(await op.textContent()).toMatch(/replay done: 3 done/);
  }, 45_000);

  it('gives a viewer no write controls, and the api refuses the writes a viewer forces', async () => {
    const { context, page } = await loggedIn('viewer');
    await page.goto(ui('/routines'));
    await page.getByRole('link', { name: 'on-demand' }).waitFor();
    expect(await page.getByRole('button', { name: /Trigger|Pause|Resume/ }).count()).toBe(0);
    await page.goto(ui('/queues'));
    await page.locator('[data-queue="flaky"]').waitFor();
    expect(await page.getByRole('button', { name: /Pause|Resume/ }).count()).toBe(0);
    await page.goto(ui('/parked?queue=flaky'));
    await page.getByText(/×/).first().waitFor();
    expect(await page.getByRole('button', { name: /Replay|Purge/ }).count()).toBe(0);

    const forced = await context.request.post(`${api.url}/routines/on-demand/trigger`, {
      headers: { 'X-Drover-CSRF': '1' },
      data: {},
    });
    expect(forced.status()).toBe(403);
    expect((await forced.json()).detail).toContain('needs role operator');
  }, 30_000);

  it('refuses a cookie-authenticated write without the CSRF header, and logs out', async () => {
    const { context, page } = await loggedIn('operator');
    const bare = await context.request.post(`${api.url}/routines/ticker/resume`, { data: {} });
    expect(bare.status()).toBe(403);
    expect((await bare.json()).detail).toContain('X-Drover-CSRF');
    expect((await api.call('GET', '/routines/ticker')).body.status).toBe('paused');

    const before = errors.length;
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('API token').waitFor();
    expect(await context.cookies()).toEqual([]);
    // The ended session's live feed is closed, not refused: no 401 shows up in the console.
    await page.waitForTimeout(1_000);
    expect(errors.slice(before)).toEqual([]);
  }, 30_000);

  it('logs out once the calls already sent have their answers: none of them comes back a 401', async () => {
    const { page } = await loggedIn('operator');
    // The overview's read of the queues is held in the browser until after Log out is clicked.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let asked!: () => void;
    const sent = new Promise<void>((r) => (asked = r));
    await page.route('**/api/v1/queues', async (route) => {
      asked();
      await held;
      await route.continue();
    });
    const statuses: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/api/v1/queues')) statuses.push(r.status());
    });
    const before = errors.length;
    await page.goto(ui('/'));
    await sent;
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForTimeout(300);
    release();
    await page.getByLabel('API token').waitFor();
    await page.waitForTimeout(500);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(errors.slice(before)).toEqual([]);
  }, 30_000);

  it('logs out even when a call already sent never gets its answer: the wait for it is capped', async () => {
    const { context, page } = await loggedIn('operator');
    const heldRoutes: Route[] = [];
    await page.route('**/api/v1/queues', (route) => void heldRoutes.push(route));
    const before = errors.length;
    await page.goto(ui('/'));
    await waitFor('the overview to ask for the queues', () => heldRoutes.length > 0, { timeoutMs: 10_000 });
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('API token').waitFor({ timeout: 10_000 });
    expect(await context.cookies()).toEqual([]);
    // Answered by the test, not the api: the session is already gone.
    for (const route of heldRoutes) await route.fulfill({ status: 200, json: { items: [] } });
    expect(errors.slice(before)).toEqual([]);
  }, 30_000);

  it("shows the routine's slot ledger as a strip: one cell per slot, its exact time and fate on hover and as text", async () => {
    const { page } = await loggedIn('viewer');
    await page.goto(ui('/routines/every-second'));
    const strip = page.getByRole('list', { name: /^Slot ledger of every-second: the last \d+ slots$/ });
    await strip.waitFor();
    // A slot a second, but each round reloads the page: on a busy machine three rounds can take past 10 s.
    await waitFor(
      'three slots that ran in the strip',
      async () => {
        await page.reload();
        // The reload ends before the page has read the ledger: count its cells once they are drawn.
        await strip.waitFor({ timeout: 10_000 });
        return (await strip.locator('li[data-fate="ran"]').count()) >= 3;
      },
      { timeoutMs: 20_000 },
    );
    const cells = await strip.locator('li').evaluateAll((lis) =>
      lis.map((li) => ({
        fate: li.getAttribute('data-fate'),
        title: li.getAttribute('title'),
        text: li.textContent,
        href: li.querySelector('a')?.getAttribute('href') ?? null,
      })),
    );
    const slots = cells.map((c) => Date.parse(c.title!.slice(0, 19).replace(' ', 'T') + 'Z'));
    // One cell per slot, one second apart, oldest first: none missing, none doubled.
    slots.forEach((at, k) => k > 0 && expect(at - slots[k - 1]!).toBe(1000));
    for (const [k, c] of cells.entries()) {
      expect(c.text).toBe(c.title); // what a screen reader reads is what the hover shows
      if (c.fate !== 'ran') continue;
      expect(c.title).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC — ran: (succeeded|running|queued), [01] attempts?$/);
      expect(c.href).toBe(`/ui/runs/${encodeURIComponent(`r-every-second-${slots[k]}`)}`);
    }
    await page
      .locator('figure.slot-ledger figcaption')
      .getByText(/\d+ ran/)
      .waitFor();
  }, 30_000);

  it('passes an axe scan (no serious or critical violations) on every main page, light and dark, with no console errors', async () => {
    const { page } = await loggedIn('admin');
    const runs = await api.call('GET', '/runs?queue=default&page_size=1');
    const pages: [string, string][] = [
      ['/', 'Overview'],
      ['/routines', 'Routines'],
      ['/routines/on-demand', 'Routine on-demand'],
      ['/routines/every-second', 'Routine every-second'],
      ['/runs', 'Runs'],
      [`/runs/${runs.body.items[0].id}`, 'Run '],
      ['/parked?queue=flaky', 'Parked runs'],
      ['/queues', 'Queues'],
      ['/workers', 'Workers'],
      ['/plan', 'Plan'],
    ];
    const found: Record<string, AxeFinding[]> = {};
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [path, title] of pages) {
        await page.goto(ui(path));
        await page.getByRole('heading', { level: 1, name: title }).waitFor();
        await page.locator('table, dl, .cards, ul, p.muted').first().waitFor();
        const v = await seriousViolations(page);
        if (v.length) found[`${scheme} ${path}`] = v;
      }
    }
    expect(found).toEqual({});
    expect(errors).toEqual([]);
  }, 30_000);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
});
