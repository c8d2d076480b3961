import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import type { NewRun } from '@drover/store';
import { ApiCluster } from '../api/support/api-cluster';
import { CLI } from './support/drover-cli';
import { TmuxServer, type Terminal } from './support/terminal';

/**
 * The CLI's live views in a real terminal (tmux): `runs watch` and `--wait` redraw their status and
 * progress rows in place (lines into a pipe), bulk replays draw a progress bar and ask `[y/N]` on a
 * terminal. The pane is read the way a person reads it, and every claim is checked against the
 * api's own view of the runs.
 */
jest.setTimeout(30_000);

describe('drover live views in a terminal (real api + scheduler + worker, tmux)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;
  let tmux: TmuxServer;
  let failing = true;
  const terminals: Terminal[] = [];

  const open = async (label: string) => {
    const t = await tmux.open(label);
    terminals.push(t);
    return t;
  };
  const runOf = async (id: string) => (await api.call('GET', `/runs/${id}`, { as: 'viewer' })).body;
  const enqueue = async (jobType: string, payload: unknown, queue = 'default'): Promise<string> => {
    const res = await api.call('POST', '/jobs', { as: 'operator', body: { jobType, payload, queue } });
    if (res.status !== 201) throw new Error(`POST /jobs answered ${res.status}: ${res.text}`);
    return res.body.runId;
  };
  const parkedCount = async () => (await api.call('GET', '/queues/flaky', { as: 'viewer' })).body.counts.parked;
  const succeededIn = async (queue: string) =>
    (await api.call('GET', `/runs?queue=${queue}&status=succeeded&page_size=1000`, { as: 'viewer' })).body.items.length;

  /** `n` runs parked in queue `flaky` (one attempt against the oracle while it answers 500). */
  async function park(n: number, tag: string): Promise<void> {
    failing = true;
    const before = await parkedCount();
    const runs: NewRun[] = Array.from({ length: n }, (_, i) => ({
      id: `${tag}-${i}`,
      routine: null,
      jobType: 'http.request',
      queue: 'flaky',
      source: 'api',
      scheduledFor: null,
      payload: { url: `${oracle.url}/fail/${tag}` },
    }));
    await api.cluster.runs.enqueueMany(runs);
    await waitFor(`${n} more parked runs`, async () => (await parkedCount()) === before + n, { timeoutMs: 15_000 });
    failing = false; // replays of them succeed
  }

  beforeAll(async () => {
    oracle = await startHttpOracle({
      answer: (path) => (failing && path.startsWith('/fail') ? { status: 500, json: { error: 'down' } } : undefined),
    });
    api = await ApiCluster.start('cli-live', {
      policy: {
        queues: [
          { name: 'default', concurrency: 5, maxAttempts: 1 },
          { name: 'flaky', concurrency: 20, maxAttempts: 1 },
        ],
        routines: [
          { name: 'nap', jobType: 'sleep', queue: 'default', payload: { ms: 2_500 }, trigger: { kind: 'manual' } },
        ],
      },
    });
    // The policy file reaches Redis through the processes' start-up, not before `start` resolves:
    // wait until the api sees both queues consumed and the routine, or the first enqueue is a 400.
    await waitFor('the policy and the worker, as the api sees them', async () => {
      const [flaky, byDefault, nap] = await Promise.all(
        ['/queues/flaky', '/queues/default', '/routines/nap'].map((p) => api.call('GET', p, { as: 'viewer' })),
      );
      return nap!.status === 200 && [flaky!, byDefault!].every((q) => q.status === 200 && q.body.workers.length > 0);
    });
    // `drover` on the PATH of the panes, so the typed lines read as a user's would.
    const bin = mkdtempSync(join(tmpdir(), 'drover-bin-'));
    writeFileSync(join(bin, 'drover'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(bin, 'drover'), 0o755);
    tmux = new TmuxServer({
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: '/nonexistent',
      DROVER_CLI_CONFIG: '/nonexistent/drover-cli.yaml',
      DROVER_API_URL: api.api.baseUrl,
      DROVER_TOKEN: api.tokens.admin,
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(terminals.map((t) => t.close()));
    await tmux?.kill();
    await api?.close();
    await oracle?.close();
  }, 30_000);

  it('runs watch: shows running with a progress value that moves, then succeeded; exit 0', async () => {
    const id = await enqueue('sleep', { ms: 4_000 });
    const t = await open('watch');
    await t.type(`drover runs watch ${id}; echo "exit=$?"`);
    const progressOf = (pane: string) => /progress (\{"sleptMs":\d+[^\n]*\})/.exec(pane)?.[1];
    const first = await t.waitFor('running with a progress value', (p) => /running/.test(p) && progressOf(p));
    const second = await t.waitFor('another progress value', (p) => {
      const now = progressOf(p);
      return now !== undefined && now !== first && now;
    });
    expect(JSON.parse(second).sleptMs).toBeGreaterThan(JSON.parse(first).sleptMs);
    expect(await t.exitCode()).toBe(0);
    const pane = await t.capture();
    expect(pane).toMatch(new RegExp(`run ${id} succeeded in \\d`));
    // The progress line was replaced in place, not left behind or run into the final lines.
    expect(pane).not.toMatch(/progress \{/);
    expect((await runOf(id)).status).toBe('succeeded');
  });

  it('runs watch redraws in place on a terminal (no scroll of old states) and prints lines into a pipe', async () => {
    const id = await enqueue('sleep', { ms: 2_500 });
    const t = await open('redraw');
    await t.type(`drover runs watch ${id}; echo "exit=$?"`);
    const during = await t.waitFor(
      'running with progress',
      (p) => /running {2}attempt 1\/1[^\n]*\n[^\n]*progress \{/.test(p) && p,
    );
    expect(await t.exitCode()).toBe(0);
    const after = await t.capture();
    // The block's rows were replaced: one status row on screen before and after, the new state in it.
    const statusRows = (pane: string) => pane.split('\n').filter((l) => /attempt 1\/1/.test(l));
    expect(statusRows(during)).toEqual([expect.stringMatching(/running/)]);
    expect(statusRows(after)).toEqual([expect.stringMatching(/succeeded {2}attempt 1\/1/)]);
    expect(after).not.toMatch(/running|progress/);

    // Not a terminal: one line per change, every state kept.
    const piped = await open('piped');
    const again = await enqueue('sleep', { ms: 1_500 });
    await piped.type(`drover runs watch ${again} | cat; echo "exit=\${PIPESTATUS[0]}"`);
    expect(await piped.exitCode()).toBe(0);
    const lines = await piped.capture();
    expect(lines).toMatch(
      /running {2}attempt 1\/1[^\n]*\n(\d\d:\d\d:\d\d {2}progress \{[^\n]*\n)+\d\d:\d\d:\d\d {2}succeeded/,
    );
  });

  it('runs watch of a run that ends parked: shows the error, exit 1; of a finished run: at once', async () => {
    const id = await enqueue('http.request', { url: `${oracle.url}/fail/watch` });
    const t = await open('parked');
    await t.type(`drover runs watch ${id}; echo "exit=$?"`);
    expect(await t.exitCode()).toBe(1);
    expect(await t.capture()).toMatch(/parked .*answered 500[\s\S]*drover: run \S+ ended parked/);
    expect((await runOf(id)).status).toBe('parked');

    // Already settled when the watch starts: its final state, and the same exit code, at once.
    const again = await open('settled');
    const started = performance.now();
    await again.type(`drover runs watch ${id}; echo "exit=$?"`);
    expect(await again.exitCode(5_000)).toBe(1);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(await again.capture()).toMatch(new RegExp(`parked .*answered 500[^\n]*\nrun ${id} parked`));
  });

  it('Ctrl-C stops a watch with 130 and leaves the prompt on a clean line; the run goes on', async () => {
    const id = await enqueue('sleep', { ms: 2_000 });
    const t = await open('interrupt');
    await t.type(`drover runs watch ${id}; echo "exit=$?"`);
    await t.waitFor('its progress', (p) => /progress \{"sleptMs"/.test(p));
    await t.keys('C-c');
    expect(await t.exitCode()).toBe(130);
    // What was on the progress line's row stays there, and `exit=` starts a row of its own.
    expect(await t.capture()).toMatch(/progress \{[^\n]*\}[^\n]*\nexit=130$/m);
    await waitFor('the run to succeed anyway', async () => (await runOf(id)).status === 'succeeded', {
      timeoutMs: 5_000,
    });
  });

  it('routines trigger --wait: the run id, running, then succeeded; exit 0', async () => {
    const t = await open('trigger');
    await t.type('drover routines trigger nap --wait; echo "exit=$?"');
    const id = await t.waitFor('the triggered run', (p) => /triggered nap: run (\S+)/.exec(p)?.[1]);
    await t.waitFor('running', (p) => /running {2}attempt 1\/1/.test(p));
    expect(await t.exitCode()).toBe(0);
    expect(await t.capture()).toMatch(new RegExp(`run ${id} succeeded`));
    const run = await runOf(id);
    expect(run).toMatchObject({ routine: 'nap', status: 'succeeded', result: { sleptMs: 2_500 } });
  });

  it('parked replay --all without --yes asks [y/N]; n changes nothing (exit 1)', async () => {
    await park(16, 'bulk');
    const t = await open('refuse');
    await t.type('drover parked replay --queue flaky --all --rate 4; echo "exit=$?"');
    await t.waitFor('the question', (p) => /replay 16 parked runs of queue flaky\? \[y\/N\]$/.test(p));
    await t.type('n');
    expect(await t.exitCode()).toBe(1);
    expect(await t.capture()).toMatch(/not confirmed; nothing was changed/);
    expect(await parkedCount()).toBe(16);
  });

  it('Ctrl-C at the [y/N] question: exit 130, nothing changed', async () => {
    const t = await open('abandon');
    await t.type('drover parked replay --queue flaky --all; echo "exit=$?"');
    await t.waitFor('the question', (p) => /replay 16 parked runs of queue flaky\? \[y\/N\]$/.test(p));
    await t.keys('C-c');
    expect(await t.exitCode(5_000)).toBe(130);
    expect(await parkedCount()).toBe(16);
  });

  it('parked replay --all --yes: the bar moves k/N with 0<k<N, ends N/N done; the runs succeed', async () => {
    const t = await open('replay');
    await t.type('drover parked replay --queue flaky --all --rate 4 --yes; echo "exit=$?"');
    const partial = await t.waitFor('a partly filled bar', (p) => {
      const m = /\[(#*)(\.*)\] {2}(\d+)\/16 /.exec(p);
      return m && Number(m[3]) > 0 && Number(m[3]) < 16 && m[1]!.length > 0 && m[2]!.length > 0 ? m : undefined;
    });
    expect(partial[1]!.length + partial[2]!.length).toBeGreaterThanOrEqual(10);
    expect(await t.exitCode()).toBe(0);
    const pane = await t.capture();
    expect(pane).toMatch(/\[#+\] {2}16\/16 {2}replayed 16 · skipped 0 · failed 0\n/);
    expect(pane).toMatch(/replay done: 16 replayed, 0 skipped, 0 failed/);
    expect(await parkedCount()).toBe(0);
    await waitFor('16 replays to succeed', async () => (await succeededIn('flaky')) === 16, { timeoutMs: 10_000 });
  });

  it('parked replay --all without --yes: y proceeds', async () => {
    await park(3, 'again');
    const t = await open('accept');
    await t.type('drover parked replay --queue flaky --all; echo "exit=$?"');
    await t.waitFor('the question', (p) => /replay 3 parked runs of queue flaky\? \[y\/N\]$/.test(p));
    await t.type('y');
    expect(await t.exitCode()).toBe(0);
    expect(await t.capture()).toMatch(/3\/3 {2}replayed 3[\s\S]*replay done: 3 replayed/);
    expect(await parkedCount()).toBe(0);
  });
});
