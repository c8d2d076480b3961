// `npm run console:screenshots`: regenerates docs/console/*.png. Starts an embedded redis-server
// and the standalone app (built: run `npm run build` first) with a tokens file, seeds some runs
// (successes and a few parked failures), logs into the console in Debian's chromium and shoots
// each page at 1280×800. `npm run console:screenshots -- batches batch-detail` writes only the named shots.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { stringify } from 'yaml';
import { startEmbeddedRedis } from './lib/embedded-redis.mjs';
import { root } from './lib/ensure.mjs';

const out = join(root, 'docs', 'console');
const only = new Set(process.argv.slice(2));
const wanted = (name) => only.size === 0 || only.has(name);
if (!existsSync(join(root, 'dist', 'console', 'index.html'))) {
  console.error('dist/console is missing: run `npm run build` first');
  process.exit(1);
}
const home = mkdtempSync(join(tmpdir(), 'drover-shots-'));
const token = randomBytes(24).toString('hex');
const adminToken = randomBytes(24).toString('hex');
const tokensFile = join(home, 'tokens.yaml');
writeFileSync(
  tokensFile,
  stringify({
    tokens: [
      { name: 'oncall', role: 'operator', sha256: createHash('sha256').update(token).digest('hex') },
      { name: 'platform-admin', role: 'admin', sha256: createHash('sha256').update(adminToken).digest('hex') },
    ],
  }),
);
const policyFile = join(home, 'drover.yaml');
writeFileSync(
  policyFile,
  stringify({
    queues: [
      { name: 'default', concurrency: 5, globalConcurrency: 10 },
      { name: 'reports', concurrency: 2, maxAttempts: 1, rateLimit: { max: 10, durationMs: 60000 } },
    ],
    routines: [
      { name: 'heartbeat', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 5000 } },
      {
        name: 'nightly-backup',
        jobType: 'sleep',
        queue: 'default',
        trigger: { kind: 'cron', cron: '30 2 * * *', tz: 'Europe/Berlin' },
        payload: { ms: 200 },
      },
      {
        name: 'slow-tick',
        jobType: 'sleep',
        queue: 'default',
        trigger: { kind: 'cron', cron: '*/10 * * * * *' },
        payload: { ms: 1500 },
        concurrencyPolicy: 'forbid',
      },
      {
        name: 'report-on-demand',
        jobType: 'sleep',
        queue: 'reports',
        trigger: { kind: 'manual' },
        payload: { ms: 700 },
      },
      // Nothing listens on port 9 of loopback: these park, for the parked page.
      {
        name: 'push-invoices',
        jobType: 'http.request',
        queue: 'reports',
        trigger: { kind: 'manual' },
        payload: { url: 'http://127.0.0.1:9/invoices' },
      },
    ],
  }),
);

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const redis = await startEmbeddedRedis(home, 6390);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const app = spawn(process.execPath, [join(root, 'dist', 'apps', 'standalone', 'main.js')], {
  cwd: root,
  env: {
    ...process.env,
    REDIS_URL: redis.url,
    PORT: String(port),
    DROVER_CONFIG: policyFile,
    DROVER_API_TOKENS_FILE: tokensFile,
    DROVER_PREFIX: 'shots',
    LOG_LEVEL: 'warn',
  },
  stdio: 'inherit',
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const call = (method, path, body) =>
  fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => r.json());

let browser;
try {
  for (let i = 0; ; i++) {
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 200) throw new Error('the standalone app did not get ready');
    await sleep(100);
  }
  const runIds = [];
  for (let i = 0; i < 4; i++) runIds.push((await call('POST', '/routines/report-on-demand/trigger', {})).runId);
  for (let i = 0; i < 5; i++) await call('POST', '/routines/push-invoices/trigger', {});
  await call('POST', '/routines/nightly-backup/pause', { note: 'backup host migration' });
  // A batch that completes with one parked run, and one still open (its runs wait an hour).
  const invoices = Array.from({ length: 11 }, (_, i) => ({ jobType: 'sleep', payload: { ms: 200 + 100 * i } }));
  const batchId = (
    await call('POST', '/batches', {
      runs: [
        ...invoices,
        { jobType: 'http.request', payload: { url: 'http://127.0.0.1:9/invoices' }, queue: 'reports' },
      ],
      onComplete: { jobType: 'noop' },
      onSuccess: { jobType: 'noop' },
    })
  ).batchId;
  await call('POST', '/batches', {
    runs: Array.from({ length: 8 }, () => ({ jobType: 'noop', payload: {}, delayMs: 3_600_000 })),
    onComplete: { jobType: 'noop' },
  });
  // A flow whose top run waits: children done, one parked (ignored), one delayed an hour, one with a child of its own.
  const flowRuns = (
    await call('POST', '/flows', {
      runs: [
        { jobType: 'noop', queue: 'reports', payload: { month: '2026-11' } },
        { jobType: 'sleep', payload: { ms: 400 }, parent: 0 },
        { jobType: 'sleep', payload: { ms: 200 }, parent: 0, delayMs: 3_600_000 },
        {
          jobType: 'http.request',
          payload: { url: 'http://127.0.0.1:9/ledger' },
          parent: 0,
          onFailure: 'ignore',
        },
        { jobType: 'noop', payload: {}, parent: 0 },
        { jobType: 'sleep', payload: { ms: 300 }, parent: 4 },
      ],
    })
  ).runs;
  await sleep(12_000); // a few heartbeats and slow ticks, and the reports done

  mkdirSync(out, { recursive: true });
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const shot = async (name) => {
    if (!wanted(name)) return;
    await sleep(600);
    await page.screenshot({ path: join(out, `${name}.png`) });
    console.log(`wrote docs/console/${name}.png`);
  };
  await page.goto(`${base}/ui/`);
  await page.getByLabel('API token').waitFor();
  await shot('login');
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  const pages = [
    ['overview', '/'],
    ['routines', '/routines'],
    ['routine-detail', '/routines/slow-tick'],
    ['runs', '/runs'],
    ['run-detail', `/runs/${runIds[0]}`],
    ['parked', '/parked?queue=reports'],
    ['queues', '/queues'],
    ['workers', '/workers'],
    ['plan', '/plan'],
    ['batches', '/batches'],
    ['batch-detail', `/batches/${batchId}`],
    ['flow', `/runs/${flowRuns[0]}`],
  ];
  for (const [name, path] of pages) {
    if (!wanted(name)) continue;
    await page.goto(`${base}/ui${path}`);
    await page.locator('h1').waitFor();
    // The overview's charts load after its counts.
    if (name === 'overview') await page.locator('figure.tchart').first().waitFor();
    // A flow's parent with a child's own children opened.
    if (name === 'flow') await page.getByRole('button', { name: `child of ${flowRuns[4]}` }).click();
    await shot(name);
  }
  // The actions: a routine's new form, an edit as YAML and its diff before saving, a backfill's preview, an ad-hoc job.
  await page.goto(`${base}/ui/routines/new`);
  await page.getByLabel('Name').fill('weekly-report');
  await page.getByLabel('Trigger').selectOption('cron');
  await page.getByLabel('Cron expression').fill('0 8 * * 1');
  await page.getByLabel('Time zone').fill('Europe/Berlin');
  await shot('routine-new');
  await page.goto(`${base}/ui/routines/slow-tick/edit`);
  // As YAML: first a value the api refuses (named by field and line), then the diff of a valid change.
  const yaml = page.getByLabel('Definition (YAML)');
  const def = (await yaml.inputValue()).replace('ms: 1500', 'ms: 2500');
  await yaml.fill(def.replace('concurrencyPolicy: forbid', 'concurrencyPolicy: buffer-two'));
  await page.getByRole('button', { name: 'Review changes' }).click();
  await page.getByTestId('validation').waitFor();
  await shot('routine-edit-yaml');
  await yaml.fill(def.replace('concurrencyPolicy: forbid', 'concurrencyPolicy: buffer-one'));
  await page.getByRole('button', { name: 'Review changes' }).click();
  await page.getByTestId('diff').waitFor();
  await shot('routine-edit-diff');
  await page.goto(`${base}/ui/routines/heartbeat`);
  await page.getByRole('button', { name: 'Backfill heartbeat…' }).click();
  await page.getByLabel('From').fill('-1m');
  await page.getByRole('button', { name: 'Preview backfill' }).click();
  await page.getByTestId('backfill-preview').waitFor();
  await shot('backfill-preview');
  await page.goto(`${base}/ui/jobs/new`);
  await page.getByLabel('Job type').fill('sleep');
  await page.getByLabel('Payload (JSON)').fill('{"ms": 5000}');
  await shot('enqueue');
  const admin = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await admin.goto(`${base}/ui/`);
  await admin.getByLabel('API token').fill(adminToken);
  await admin.getByRole('button', { name: 'Log in' }).click();
  await admin.getByRole('heading', { name: 'Overview' }).waitFor();
  await admin.goto(`${base}/ui/audit`);
  await admin.locator('tbody tr').first().waitFor();
  await sleep(600);
  if (wanted('audit')) {
    await admin.screenshot({ path: join(out, 'audit.png') });
    console.log('wrote docs/console/audit.png');
  }
  await admin.close();

  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${base}/ui/routines`);
  await page.locator('table').waitFor();
  await shot('routines-dark');
  await page.setViewportSize({ width: 390, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${base}/ui/runs/${runIds[0]}`);
  await page.locator('h1').waitFor();
  await shot('run-detail-phone');
} finally {
  await browser?.close();
  app.kill('SIGTERM');
  await new Promise((r) => app.once('exit', r));
  await redis.stop();
  rmSync(home, { recursive: true, force: true });
}
