import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { waitFor } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { seriousViolations, type AxeFinding } from './support/axe';
import { launchChromium, loggedIn as consoleLogin, type ConsoleSession } from './support/browser';

/**
 * A routine as YAML in the console, in a real browser against a real api: created from a routine
 * copied out of a policy file, opened as YAML in a stable order, saved unchanged without a request,
 * a broken text named by line and column before any request, the api's validation naming the
 * field and its line, the diff in YAML, a save with If-Match (and a 412 when someone else changed
 * it). What the console did is checked through the API and the requests it sent.
 */
describe('web console: routines as YAML (chromium, real api)', () => {
  let api: ApiCluster;
  let browser: Browser;
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];
  const ui = (path = '/') => `${api.api.baseUrl}/ui${path}`;
  const session = (): ConsoleSession => ({ browser, contexts, errors, uiUrl: ui('') });
  /** The refusals a step asks for (the api's validation: 400, the stale save: 412), reported by the browser. */
  const ASKED_FOR = [/\/routines\/hourly\/edit: .*status of (400|412)/];
  const unexpected = () => errors.filter((e) => !ASKED_FOR.some((r) => r.test(e)));

  /** The operator's page, and every api write and script it requests from now on. */
  async function operator(): Promise<{ page: Page; sent: Request[]; scripts: string[] }> {
    const { page } = await consoleLogin(session(), 'operator', api.tokens.operator);
    // A step that never comes fails on its own line, well within the test's time.
    page.setDefaultTimeout(10_000);
    const sent: Request[] = [];
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/') && r.method() !== 'GET') sent.push(r);
      if (r.resourceType() === 'script') scripts.push(r.url());
    });
    return { page, sent, scripts };
  }
  const yamlOf = (page: Page) => page.getByLabel('Definition (YAML)');

  beforeAll(async () => {
    [api, browser] = await Promise.all([
      ApiCluster.start('console-yaml', { scheduler: false, worker: false }),
      launchChromium(),
    ]);
    const bundle = {
      queues: [{ name: 'default' }, { name: 'reports' }],
      routines: [{ name: 'hourly', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 60_000 } }],
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

  it('creates a routine pasted from a policy file, the form and the YAML showing the same definition', async () => {
    const { page, scripts } = await operator();
    await page.goto(ui('/routines'));
    await page.getByRole('link', { name: 'New routine' }).click();
    await page.getByLabel('Name').fill('pasted');
    // The YAML parser is its own chunk, fetched when the YAML tab first opens.
    expect(scripts.filter((s) => s.includes('yaml-text'))).toEqual([]);
    await page.getByRole('button', { name: 'YAML', exact: true }).click();
    expect(await yamlOf(page).inputValue()).toMatch(
      /^name: pasted\njobType: noop\nqueue: default\ntrigger:\n {2}kind: manual\n$/,
    );
    expect(scripts.filter((s) => s.includes('yaml-text'))).toHaveLength(1);

    // Selected in a policy file from its `- name:`: the lines under it keep their indent.
    await yamlOf(page).fill(
      [
        '- name: pasted',
        '    jobType: sleep',
        '    queue: reports',
        "    trigger: { kind: cron, cron: '*/10 * * * * *' } # every 10 s",
        '    payload: { ms: 1500 }',
        '    concurrencyPolicy: forbid',
      ].join('\n'),
    );
    await page.getByRole('button', { name: 'Form', exact: true }).click();
    expect(await page.getByLabel('Cron expression').inputValue()).toBe('*/10 * * * * *');
    await page.getByLabel('Job type').fill('sleep');
    await page.getByRole('button', { name: 'YAML', exact: true }).click();
    expect(await yamlOf(page).inputValue()).toContain('payload:\n  ms: 1500\nconcurrencyPolicy: forbid\n');

    await page.getByRole('button', { name: 'Review changes' }).click();
    const diff = page.getByTestId('diff');
    await diff.getByText('+   cron: "*/10 * * * * *"').waitFor();
    await page.getByRole('button', { name: 'Create routine' }).click();
    await page.getByRole('heading', { level: 1, name: 'Routine pasted', exact: true }).waitFor();
    expect((await api.call('GET', '/routines/pasted')).body.definition).toMatchObject({
      jobType: 'sleep',
      queue: 'reports',
      trigger: { kind: 'cron', cron: '*/10 * * * * *' },
      payload: { ms: 1500 },
      concurrencyPolicy: 'forbid',
    });
    expect(unexpected()).toEqual([]);
  }, 30_000);

  it('edits as YAML: unchanged sends nothing, a broken text is named by line, the api names the field, the diff, If-Match and 412', async () => {
    const { page, sent } = await operator();
    await page.goto(ui('/routines/hourly'));
    await page.getByRole('link', { name: 'Edit' }).click();
    const yaml = yamlOf(page);
    const stored = await yaml.inputValue();
    expect(stored.split('\n').slice(0, 6)).toEqual([
      'name: hourly',
      'jobType: noop',
      'queue: default',
      'trigger:',
      '  kind: interval',
      '  everyMs: 60000',
    ]);

    await page.getByRole('button', { name: 'Review changes' }).click();
    await page.getByTestId('note').getByText('No changes').waitFor();
    expect(sent).toEqual([]);

    await yaml.fill(stored.replace('  everyMs: 60000', '  everyMs: 60000\n bad: indent'));
    await page.getByRole('button', { name: 'Review changes' }).click();
    const syntax = page.getByTestId('syntax-error');
    await syntax.getByText(/^Line 7, column 1: .+ not sent: fix the YAML first\.$/).waitFor();
    expect(await yaml.getAttribute('aria-invalid')).toBe('true');
    await waitFor(
      'the caret at the error',
      async () => (await page.evaluate('document.activeElement.tagName')) === 'TEXTAREA',
    );
    await page.getByRole('button', { name: 'JSON', exact: true }).click();
    await yaml.waitFor(); // a text that does not parse keeps its tab
    expect(sent).toEqual([]);

    const refusedText = stored.replace(
      /trigger:\n {2}kind: interval\n {2}everyMs: 60000/,
      'trigger:\n  kind: cron\n  cron: every tuesday',
    );
    await yaml.fill(refusedText);
    await syntax.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Review changes' }).click();
    const refused = page.getByTestId('validation');
    await refused.getByText('trigger.cron').waitFor();
    await refused.getByRole('button', { name: 'line 6' }).click();
    const line6 = refusedText.indexOf('  cron: every tuesday');
    await waitFor(
      'the caret on line 6',
      async () => (await page.evaluate('document.activeElement.selectionStart')) === line6,
    );
    expect(await page.getByTestId('diff').count()).toBe(0);

    await yaml.fill(stored.replace('everyMs: 60000', 'everyMs: 120000'));
    await page.getByRole('button', { name: 'Review changes' }).click();
    const diff = page.getByTestId('diff');
    await diff.getByText('-   everyMs: 60000').waitFor();
    await diff.getByText('+   everyMs: 120000').waitFor();
    expect(await diff.locator('.d-del, .d-add').count()).toBe(2);

    // Someone else changes it meanwhile: the save is refused (If-Match) and the diff is redone against it.
    const etag = (await api.call('GET', '/routines/hourly')).headers.get('etag');
    expect((await api.call('PATCH', '/routines/hourly', { body: { payload: { by: 'someone' } } })).status).toBe(200);
    await page.getByRole('button', { name: 'Save hourly' }).click();
    await page
      .getByRole('alert')
      .getByText(/Someone else changed hourly/)
      .waitFor();
    await diff.getByText('-   by: someone').waitFor();
    await page.getByRole('button', { name: 'Save hourly' }).click();
    await page.getByRole('heading', { level: 1, name: 'Routine hourly', exact: true }).waitFor();
    const puts = sent.filter((r) => r.method() === 'PUT');
    expect(puts.map((r) => r.headers()['if-match'])).toEqual([etag, expect.any(String)]);
    expect(puts[1]!.headers()['if-match']).not.toBe(etag);
    const saved = (await api.call('GET', '/routines/hourly')).body.definition;
    expect(saved.trigger).toEqual({ kind: 'interval', everyMs: 120_000 });
    expect(saved.payload ?? {}).not.toHaveProperty('by');
    expect(unexpected()).toEqual([]);
  }, 30_000);

  it('passes axe (no serious or critical violations) as YAML, with a parse error, a refusal and the diff, light and dark', async () => {
    const { page } = await operator();
    const edit = async (p: Page, change: (t: string) => string, ready: string) => {
      const yaml = yamlOf(p);
      await yaml.fill(change(await yaml.inputValue()));
      await p.getByRole('button', { name: 'Review changes' }).click();
      await p.getByTestId(ready).waitFor();
    };
    const steps: [string, (p: Page) => Promise<unknown>][] = [
      ['open', (p) => yamlOf(p).waitFor()],
      ['parse error', (p) => edit(p, (t) => `${t}\n  - oops`, 'syntax-error')],
      ['refused', (p) => edit(p, (t) => t.replace('jobType: noop', 'jobType: ""'), 'validation')],
      ['diff', (p) => edit(p, (t) => t.replace('jobType: noop', 'jobType: sleep'), 'diff')],
    ];
    const found: Record<string, AxeFinding[]> = {};
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [step, ready] of steps) {
        await page.goto(ui('/routines/hourly/edit'));
        await yamlOf(page).waitFor();
        await ready(page);
        const v = await seriousViolations(page);
        if (v.length) found[`${scheme} ${step}`] = v;
      }
    }
    expect(found).toEqual({});
    expect(unexpected()).toEqual([]);
  }, 60_000);
});
