import type { Browser, BrowserContext, Page } from 'playwright-core';
import { waitFor } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations, type AxeFinding } from './support/axe';
import { launchChromium, loggedIn as consoleLogin, type ConsoleSession } from './support/browser';

/**
 * Every action of the console in a real browser against a real api: create a routine with the
 * form, edit one as JSON (the api's validation naming the field, the diff, a save with If-Match
 * and a 412 when someone else changed it), backfill after the api's dry run, archive, delete in a
 * dialog, enqueue an ad-hoc job and cancel its run, the audit log filtered; a viewer sees none of
 * the controls. What the console did is checked through the API.
 */
describe('web console: every action (chromium, real api)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });
  const loggedIn = (role: 'viewer' | 'operator' | 'admin') =>
    consoleLogin(session(), role, api.tokens[role]).then((s) => s.page);
  /**
   * The browser reports each refusal a step asks for as a console error: the validation errors
   * (400) and the stale save (412) on the editor, the refused job (400) on the enqueue page. Those,
   * and only those, are expected.
   */
  const ASKED_FOR = [/\/routines\/minutely\/edit: .*status of (400|412)/, /\/jobs\/new: .*status of 400/];
  const unexpected = () => errors.filter((e) => !ASKED_FOR.some((r) => r.test(e)));
  const runsOf = async (name: string) => (await api.call('GET', `/routines/${name}/runs`)).body.items as unknown[];

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-actions', { scheduler: false, worker: false }),
      launchChromium(),
    ]);
    const routine = (name: string, extra = {}) => ({
      name,
      jobType: 'noop',
      queue: 'default',
      trigger: { kind: 'interval', everyMs: 60_000 },
      ...extra,
    });
    const bundle = {
      queues: [{ name: 'default' }, { name: 'reports' }],
      routines: [routine('minutely'), routine('ticker'), routine('platform-sweep', { system: true })],
    };
    expect((await api.call('POST', '/apply', { body: bundle })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  }, 30_000);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  it('creates a routine with the form: the diff of the new definition, then created by the operator', async () => {
    const page = await loggedIn('operator');
    await page.goto(ui('/routines'));
    await page.getByRole('link', { name: 'New routine' }).click();
    await page.getByLabel('Name').fill('from-form');
    await page.getByLabel('Trigger').selectOption('interval');
    await page.getByLabel('Every (ms)').fill('90000');
    await page.getByLabel('Queue').selectOption('reports');
    await page.getByRole('button', { name: 'Review changes' }).click();
    const diff = page.getByTestId('diff');
    await diff.getByText('+   everyMs: 90000').waitFor();
    await page.getByRole('button', { name: 'Create routine' }).click();
    await page.getByRole('heading', { level: 1, name: 'Routine from-form', exact: true }).waitFor();
    const made = await api.call('GET', '/routines/from-form');
    expect(made.body).toMatchObject({
      origin: 'api',
      definition: { jobType: 'noop', queue: 'reports', trigger: { kind: 'interval', everyMs: 90_000 } },
    });
    expect(unexpected()).toEqual([]);
  }, 30_000);

  it("edits as JSON: the api's error names the field, the diff shows the change, a stale save gets 412 and a fresh diff", async () => {
    const page = await loggedIn('operator');
    await page.goto(ui('/routines/minutely'));
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'JSON', exact: true }).click();
    const json = page.getByLabel('Definition (JSON)');
    const stored = JSON.parse(await json.inputValue()) as Record<string, unknown>;
    expect(stored).toMatchObject({ name: 'minutely', trigger: { kind: 'interval', everyMs: 60_000 } });

    await json.fill(JSON.stringify({ ...stored, trigger: { kind: 'cron', cron: 'every tuesday' } }, null, 2));
    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByTestId('validation').getByText('trigger.cron').waitFor();
    expect(await page.getByTestId('diff').count()).toBe(0);

    await json.fill(JSON.stringify({ ...stored, trigger: { kind: 'interval', everyMs: 120_000 } }, null, 2));
    await page.getByRole('button', { name: 'Review changes' }).click();
    const diff = page.getByTestId('diff');
    await diff.getByText('-     "everyMs": 60000').waitFor();
    await diff.getByText('+     "everyMs": 120000').waitFor();

    // Someone else changes it meanwhile: the save is refused (If-Match) and the diff is redone against it.
    expect((await api.call('PATCH', '/routines/minutely', { body: { payload: { by: 'someone' } } })).status).toBe(200);
    await page.getByRole('button', { name: 'Save minutely' }).click();
    await page
      .getByRole('alert')
      .getByText(/Someone else changed minutely/)
      .waitFor();
    await diff.getByText('"by": "someone"').waitFor();
    expect((await api.call('GET', '/routines/minutely')).body.definition.trigger.everyMs).toBe(60_000);
    await page.getByRole('button', { name: 'Save minutely' }).click();
    await page.getByRole('heading', { level: 1, name: 'Routine minutely', exact: true }).waitFor();
    const saved = (await api.call('GET', '/routines/minutely')).body;
    expect(saved.definition.trigger).toEqual({ kind: 'interval', everyMs: 120_000 });
    expect(saved.drifted).toBe(true);
    expect(unexpected()).toEqual([]);
  }, 30_000);

  it("backfills after the api's dry run: the preview writes nothing, the confirm runs exactly what it listed", async () => {
    const page = await loggedIn('operator');
    await page.goto(ui('/routines/ticker'));
    await page.getByRole('button', { name: 'Backfill ticker…' }).click();
    await page.getByLabel('From').fill('-5m');
    await page.getByRole('button', { name: 'Preview backfill' }).click();
    const preview = page.getByTestId('backfill-preview');
    await preview.getByText(/^\d runs would be created/).waitFor();
    const listed = await preview.locator('code').allInnerTexts();
    expect(listed.length).toBeGreaterThanOrEqual(4);
    expect(listed.every((id) => /^r-ticker-\d+$/.test(id))).toBe(true);
    expect(await runsOf('ticker')).toEqual([]);

    await page.getByRole('button', { name: `Backfill ${listed.length} runs` }).click();
    await page.getByTestId('backfill-done').getByText(`Backfilled: ${listed.length} created`).waitFor();
    const runs = (await runsOf('ticker')) as { id: string; source: string; createdBy: string }[];
    expect(runs.map((r) => r.id).sort()).toEqual([...listed].sort());
    expect(runs.every((r) => r.source === 'catch-up' && r.createdBy === 'operator-token')).toBe(true);
    expect(unexpected()).toEqual([]);
  }, 30_000);

  it('archives, then deletes in a dialog that names the routine, takes focus and gives it back', async () => {
    const page = await loggedIn('operator');
    await page.goto(ui('/routines/ticker'));
    await page.getByRole('button', { name: 'Archive ticker…' }).click();
    await page.getByRole('button', { name: 'Archive ticker', exact: true }).click();
    await page.getByRole('button', { name: 'Unarchive ticker' }).waitFor();
    expect((await api.call('GET', '/routines/ticker')).body.status).toBe('archived');

    const opener = page.getByRole('button', { name: 'Delete…' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Delete routine ticker?' });
    await dialog.waitFor();
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Delete…');
    expect((await api.call('GET', '/routines/ticker')).status).toBe(200);

    await opener.click();
    const beforeDelete = errors.length;
    await dialog.getByRole('button', { name: 'Delete ticker' }).click();
    await page.waitForURL(/\/ui\/routines$/);
    expect((await api.call('GET', '/routines/ticker')).status).toBe(404);

    // A system routine is edited and deleted by admins only, as the api allows.
    await page.goto(ui('/routines/platform-sweep'));
    await page.getByRole('button', { name: 'Trigger platform-sweep now' }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete…' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    // The routine page re-reads its routine while it lives; its reads in flight as the delete lands
    // answer 404, logged under the routine page or the list it moved on to. Those refusals of the
    // deleted routine, after the delete only, are expected
    // (looked for only now, so that every read in flight has been answered).
    const raced = errors
      .slice(beforeDelete)
      .filter((e) => /status of 404/.test(e) && /\/routines\/ticker(\/|\?|:|\]|$)/.test(e));
    for (const e of raced) errors.splice(errors.indexOf(e), 1);
    expect(unexpected()).toEqual([]);
  }, 30_000);

  it('enqueues an ad-hoc job (a bad payload named by field first) and cancels its run', async () => {
    const page = await loggedIn('operator');
    await page.goto(ui('/queues'));
    await page.getByRole('link', { name: 'Enqueue a job' }).click();
    await page.getByLabel('Job type').fill('sleep');
    await page.getByLabel('Payload (JSON)').fill('{"ms": "long"}');
    await page.getByRole('button', { name: 'Enqueue', exact: true }).click();
    await page
      .getByTestId('validation')
      .getByText(/payload\.ms/)
      .waitFor();
    await page.getByLabel('Payload (JSON)').fill('{"ms": 60000}');
    await page.getByRole('button', { name: 'Enqueue', exact: true }).click();
    await page.waitForURL(/\/ui\/runs\/[^/]+$/);
    const runId = decodeURIComponent(page.url().split('/').pop()!);
    expect((await api.call('GET', `/runs/${encodeURIComponent(runId)}`)).body).toMatchObject({
      jobType: 'sleep',
      source: 'api',
      createdBy: 'operator-token',
    });
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByTestId('run-status').getByText('canceled', { exact: true }).waitFor();
    expect((await api.call('GET', `/runs/${encodeURIComponent(runId)}`)).body.status).toBe('canceled');
    expect(unexpected()).toEqual([]);
  }, 30_000);

  it('shows the audit log to admins, filtered by who, action and time; a viewer gets no mutating control', async () => {
    const admin = await loggedIn('admin');
    await admin.getByRole('link', { name: 'Audit' }).click();
    await admin.getByRole('cell', { name: 'operator-token' }).first().waitFor();
    await admin.getByLabel('Who').fill('OPERATOR');
    await admin.getByLabel('Action').fill('deleteRoutine');
    await admin.getByLabel('From').fill('-10m');
    await admin.getByRole('button', { name: 'Filter' }).click();
    await admin.waitForURL(/action=deleteRoutine/);
    const rows = admin.locator('tbody tr');
    // The page keeps the unfiltered rows until the filtered ones arrive.
    await waitFor('the filtered page', async () => (await rows.count()) === 1);
    expect(await rows.first().innerText()).toMatch(/operator-token\s+operator\s+deleteRoutine\s+name=ticker\s+204/);

    const viewer = await loggedIn('viewer');
    expect(await viewer.getByRole('link', { name: 'Audit' }).count()).toBe(0);
    for (const [path, ready] of [
      ['/routines', 'minutely'],
      ['/routines/minutely', 'Routine minutely'],
      ['/queues', 'reports'],
    ] as const) {
      await viewer.goto(ui(path));
      await viewer.getByText(ready).first().waitFor();
      expect(await viewer.getByRole('link', { name: /New routine|Edit|Enqueue/ }).count()).toBe(0);
      expect(await viewer.getByRole('button', { name: /Backfill|Delete|Archive|Trigger|Pause/ }).count()).toBe(0);
    }
    await viewer.goto(ui('/routines/new'));
    await viewer.getByText('Changing routines needs role operator.').waitFor();
    expect(unexpected()).toEqual([]);
  }, 30_000);

  it('passes axe (no serious or critical violations) on each new page and the open dialog, light and dark', async () => {
    const page = await loggedIn('admin');
    const steps: [string, (p: Page) => Promise<unknown>][] = [
      ['/routines/new', (p) => p.getByLabel('Name').waitFor()],
      ['/routines/minutely/edit', (p) => p.getByLabel('Definition (YAML)').waitFor()],
      [
        '/routines/minutely/edit',
        async (p) => {
          const yaml = p.getByLabel('Definition (YAML)');
          await yaml.fill((await yaml.inputValue()).replace('jobType: noop', 'jobType: sleep'));
          await p.getByRole('button', { name: 'Review changes' }).click();
          await p.getByTestId('diff').waitFor();
        },
      ],
      ['/jobs/new', (p) => p.getByLabel('Job type').waitFor()],
      ['/audit', (p) => p.locator('tbody tr').first().waitFor()],
      [
        '/routines/minutely',
        async (p) => {
          await p.getByRole('button', { name: 'Backfill minutely…' }).click();
          await p.getByRole('button', { name: 'Delete…' }).click();
          await p.getByRole('dialog').waitFor();
        },
      ],
    ];
    const found: Record<string, AxeFinding[]> = {};
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [i, [path, ready]] of steps.entries()) {
        await page.goto(ui(path));
        await ready(page);
        const v = await seriousViolations(page);
        if (v.length) found[`${scheme} ${path} ${i}`] = v;
      }
    }
    expect(found).toEqual({});
    expect(unexpected()).toEqual([]);
  }, 60_000);
});
