import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { drover, droverAs } from './support/drover-cli';

/** A loopback port nothing listens on (one was, a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Every API-backed command of `drover`, run as the built binary against a real api, scheduler and
 * worker: JSON for scripts, tables for people, exit codes, a wrong token and an unreachable api.
 * `http.request` runs call an HTTP oracle, which counts the deliveries independently of Drover.
 */
describe('drover CLI over the API (real processes)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;
  let admin: ReturnType<typeof droverAs>;
  let viewer: ReturnType<typeof droverAs>;
  const json = (out: string) => JSON.parse(out) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

  beforeAll(async () => {
    oracle = await startHttpOracle({
      answer: (path) => (path.startsWith('/fail') ? { status: 500, json: { error: 'down' } } : undefined),
    });
    api = await ApiCluster.start('cli', {
      policy: {
        queues: [
          { name: 'default', concurrency: 5 },
          { name: 'flaky', concurrency: 5, maxAttempts: 1 },
        ],
        routines: [
          {
            name: 'ping',
            jobType: 'http.request',
            queue: 'default',
            trigger: { kind: 'manual' },
            payload: { url: `${oracle.url}/ping` },
          },
          {
            name: 'morning',
            jobType: 'noop',
            queue: 'default',
            trigger: { kind: 'cron', cron: '0 9 * * *', tz: 'Europe/Paris' },
          },
        ],
      },
    });
    admin = droverAs(api, 'admin');
    viewer = droverAs(api, 'viewer');
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  it('status: leader, workers and queues, as JSON and as a table', async () => {
    const res = await viewer(['status', '-o', 'json']);
    expect(res.code).toBe(0);
    const s = json(res.stdout);
    expect(s.cluster.leader).toMatchObject({ instance: expect.any(String), epoch: expect.any(Number) });
    expect(s.cluster.workers).toHaveLength(1);
    expect(s.queues.map((q: { name: string }) => q.name).sort()).toEqual(['default', 'flaky']);

    const table = await viewer(['status']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^leader\s+\S+ \(epoch \d+/m);
    expect(table.stdout).toMatch(/^QUEUE\s+STATE\s+WAITING\s+ACTIVE/m);
    expect(table.stdout).toMatch(/^flaky\s+running\s+0/m);
    // Not a terminal and no FORCE_COLOR: no escape codes for the pipe.
    expect(table.stdout).not.toContain('\u001b[');
  });

  it('routines trigger --wait runs the routine once, delivered at the receiver, and exits 0', async () => {
    const before = oracle.hits.filter((h) => h.routine === 'ping').length;
    const res = await admin(['routines', 'trigger', 'ping', '--wait']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const runId = /run (\S+)/.exec(res.stdout)![1]!;
    expect(res.stdout).toMatch(new RegExp(`run ${runId} succeeded in`));
    expect(oracle.hits.filter((h) => h.routine === 'ping')).toHaveLength(before + 1);
    expect(oracle.hits.at(-1)?.runId).toBe(runId);

    // The same idempotency key twice: one run, one delivery.
    const a = await admin(['routines', 'trigger', 'ping', '--key', 'cli-once', '-o', 'json']);
    const b = await admin(['routines', 'trigger', 'ping', '--key', 'cli-once', '-o', 'json']);
    expect(json(a.stdout).runId).toBe(json(b.stdout).runId);
    await oracle.waitFor('the keyed run', (hits) => hits.some((h) => h.runId === json(a.stdout).runId), 15_000);
    const got = await admin(['runs', 'get', json(a.stdout).runId, '-o', 'json']);
    expect(json(got.stdout)).toMatchObject({ status: 'succeeded', routine: 'ping', source: 'manual' });
    expect(oracle.hits.filter((h) => h.runId === json(a.stdout).runId)).toHaveLength(1);
  });

  it('enqueue --wait of a run that parks exits 1 with its error; runs get and parked ls show it; replay --all --yes runs it again', async () => {
    const res = await admin([
      'enqueue',
      'http.request',
      '--queue',
      'flaky',
      '--payload',
      JSON.stringify({ url: `${oracle.url}/fail` }),
      '--wait',
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^drover: run \S+ ended parked: .*500/m);
    const runId = /run (\S+)/.exec(res.stdout)![1]!;
    // The run's page for people: its status and the one attempt's error, with its stack on request.
    const shown = await viewer(['runs', 'get', runId, '--stacks']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^status\s+parked/m);
    // Instants one way, the console's too: `2026-11-24 20:59:20 UTC`.
    expect(shown.stdout).toMatch(/^ {2}#1 {2}\S+\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC {2}.*500/m);
    expect(shown.stdout).toMatch(/^started\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC \((now|\S+ ago)\)$/m);
    expect(shown.stdout).toMatch(/^ {10}at \S/m);

    const parked = await viewer(['parked', 'ls', '--queue', 'flaky', '-o', 'json']);
    expect(parked.code).toBe(0);
    expect(json(parked.stdout).map((r: { id: string }) => r.id)).toContain(runId);

    const dry = await admin(['parked', 'replay', '--queue', 'flaky', '--all', '--dry-run', '-o', 'json']);
    expect(json(dry.stdout)).toEqual({ dryRun: true, matched: 1 });
    // A script that forgot --yes is refused (exit 2) and nothing changes.
    const unasked = await admin(['parked', 'replay', '--queue', 'flaky', '--all']);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain('add --yes');
    expect(await api.cluster.runs.parkedCount('flaky')).toBe(1);

    const replay = await admin(['parked', 'replay', '--queue', 'flaky', '--all', '--yes', '-o', 'json']);
    expect(replay.code).toBe(0);
    const lines = replay.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({
      event: 'final',
      data: { kind: 'replay', status: 'done', matched: 1, done: 1 },
    });
    expect(lines.slice(0, -1).every((l: { event: string }) => l.event === 'progress')).toBe(true);
    await waitFor('the replay to park again', async () => (await api.cluster.runs.parkedCount('flaky')) === 1, {
      timeoutMs: 15_000,
    });
    const after = json((await viewer(['parked', 'ls', '--queue', 'flaky', '-o', 'json'])).stdout);
    expect(after).toHaveLength(1);
    expect(after[0].replayOf).toBe(runId);

    // One by id, then purge by id (admin).
    const one = await admin(['parked', 'purge', after[0].id, '--yes']);
    expect(one.code).toBe(0);
    expect(await api.cluster.runs.parkedCount('flaky')).toBe(0);
  });

  it('a run retried before it parks took from its first attempt to the end, not its last attempt alone', async () => {
    const payload = JSON.stringify({ url: `${oracle.url}/fail` });
    const args = ['enqueue', 'http.request', '--queue', 'flaky', '--max-attempts', '2', '--payload', payload];
    const res = await admin([...args, '--wait']);
    expect(res.code).toBe(1);
    // Two attempts with the default 1 s backoff between them: over a second, not the last attempt's ms.
    expect(res.stdout).toMatch(/^run \S+ parked in \d+s/m);
    const runId = /run (\S+)/.exec(res.stdout)![1]!;
    const run = json((await viewer(['runs', 'get', runId, '-o', 'json'])).stdout);
    expect(Date.parse(run.finishedAt) - Date.parse(run.startedAt)).toBeGreaterThanOrEqual(900);
    expect(Date.parse(run.startedAt)).toBeGreaterThanOrEqual(Date.parse(run.createdAt));
    expect(Date.parse(run.startedAt)).toBe(Date.parse(run.errors[0].startedAt));
  }, 30_000);

  it('runs ls filters, runs cancel cancels a delayed run', async () => {
    const enq = await admin(['enqueue', 'noop', '--at', '1h', '-o', 'json']);
    expect(enq.code).toBe(0);
    const { runId } = json(enq.stdout);
    const listed = json((await viewer(['runs', 'ls', '--status', 'scheduled', '-o', 'json'])).stdout);
    expect(listed.map((r: { id: string }) => r.id)).toContain(runId);
    const cancel = await admin(['runs', 'cancel', runId, '-o', 'json']);
    expect(cancel.code).toBe(0);
    expect(json(cancel.stdout).outcome).toBe('canceled');
    const got = await api.call('GET', `/runs/${runId}`, { as: 'viewer' });
    expect(got.body.status).toBe('canceled');

    const table = await viewer(['runs', 'ls', '--limit', '3']);
    expect(table.stdout).toMatch(/^ID\s+STATUS\s+ROUTINE\s+JOB TYPE/m);
  });

  it('pause --until and resume a routine; preview shows DST-aware local times', async () => {
    const pause = await admin(['routines', 'pause', 'morning', '--note', 'maintenance', '--until', '2h', '-o', 'json']);
    expect(pause.code).toBe(0);
    const paused = (await api.call('GET', '/routines/morning', { as: 'viewer' })).body;
    expect(paused.status).toBe('paused');
    expect(paused.pause.note).toBe('maintenance');
    expect(Date.parse(paused.pause.until) - Date.now()).toBeGreaterThan(110 * 60_000);
    const ls = await viewer(['routines', 'ls', '--status', 'paused']);
    expect(ls.stdout).toMatch(/^morning\s+paused \(resumes in 1h59m\)/m);
    expect((await admin(['routines', 'resume', 'morning'])).code).toBe(0);
    expect((await api.call('GET', '/routines/morning', { as: 'viewer' })).body.status).toBe('active');
    // `tomorrow 09:00` is read in UTC, by the parser the console's pause form shares.
    const asked = Date.now();
    expect((await admin(['routines', 'pause', 'morning', '--until', 'tomorrow 09:00'])).code).toBe(0);
    const until = (await api.call('GET', '/routines/morning', { as: 'viewer' })).body.pause.until;
    // "Tomorrow" as of the command: either side of a midnight the command may have straddled.
    expect(nineTomorrow(asked, Date.now())).toContain(Date.parse(until));
    expect((await admin(['routines', 'resume', 'morning'])).code).toBe(0);

    const preview = await viewer([
      'routines',
      'preview',
      'morning',
      '--from',
      '2026-03-28T12:00:00Z',
      '--count',
      '2',
      '-o',
      'json',
    ]);
    expect(json(preview.stdout).items).toEqual([
      { at: '2026-03-29T07:00:00.000Z', local: '2026-03-29T09:00:00.000+02:00' },
      { at: '2026-03-30T07:00:00.000Z', local: '2026-03-30T09:00:00.000+02:00' },
    ]);
  });

  it('apply --dry-run reports changes and changes nothing; put round-trips a routine; queues pause and resume; plan, workers, audit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-cli-'));
    const file = join(dir, 'bundle.yaml');
    writeFileSync(
      file,
      stringify({
        queues: [{ name: 'default', concurrency: 5 }],
        routines: [{ name: 'fresh', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' } }],
      }),
    );
    const dry = await admin(['routines', 'apply', '-f', file, '--dry-run', '-o', 'json']);
    expect(dry.code).toBe(0);
    expect(json(dry.stdout)).toMatchObject({ dryRun: true, created: ['fresh'] });
    expect((await api.call('GET', '/routines/fresh', { as: 'viewer' })).status).toBe(404);

    // get -o json | edit | put -f - : the round trip the help shows; a stale --if-version is a 412.
    const got = json((await viewer(['routines', 'get', 'morning', '-o', 'json'])).stdout);
    const edited = { ...got, definition: { ...got.definition, labels: { team: 'cli' } } };
    const put = await admin(['routines', 'put', '-f', '-', '--if-version', String(got.version)], {
      input: JSON.stringify(edited),
    });
    expect(put.stderr).toBe('');
    expect(put.stdout).toBe(`routine morning saved (version ${got.version + 1})\n`);
    const stored = (await api.call('GET', '/routines/morning', { as: 'viewer' })).body;
    expect(stored.definition.labels).toEqual({ team: 'cli' });
    const stale = await admin(['routines', 'put', '-f', '-', '--if-version', String(got.version)], {
      input: JSON.stringify(got),
    });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/\(412\)/);
    expect((await api.call('GET', '/routines/morning', { as: 'viewer' })).body.definition.labels).toEqual({
      team: 'cli',
    });

    expect((await admin(['queues', 'pause', 'flaky'])).stdout).toBe('queue flaky paused\n');
    expect((await api.call('GET', '/queues/flaky', { as: 'viewer' })).body.paused).toBe(true);
    expect((await admin(['queues', 'resume', 'flaky'])).code).toBe(0);
    expect((await api.call('GET', '/queues/flaky', { as: 'viewer' })).body.paused).toBe(false);

    const plan = await viewer(['plan', '-o', 'json']);
    expect(plan.code).toBe(0);
    expect(json(plan.stdout)).toHaveProperty('upcoming');
    const workers = json((await viewer(['workers', '-o', 'json'])).stdout);
    expect(workers[0].queues.map((q: { name: string }) => q.name).sort()).toEqual(['default', 'flaky']);

    const audit = json((await admin(['audit', '--limit', '100', '-o', 'json'])).stdout);
    expect(audit.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['pauseQueue', 'resumeQueue']),
    );
    expect(audit.find((e: { action: string }) => e.action === 'pauseQueue').token).toBe('admin-token');
  });

  it('apply --what-if prints what would fire and why, applies nothing, and lists every problem of a bad bundle as validate does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-cli-'));
    const file = join(dir, 'candidate.yaml');
    const morning = { name: 'morning', jobType: 'noop', queue: 'default' };
    writeFileSync(
      file,
      stringify({
        queues: [{ name: 'default', concurrency: 5 }],
        routines: [
          { ...morning, priority: 'high', trigger: { kind: 'cron', cron: '0 9 * * *', tz: 'Europe/Paris' } },
          {
            name: 'held',
            jobType: 'noop',
            queue: 'default',
            status: 'paused',
            trigger: { kind: 'manual' },
            condition: { kind: 'queue-depth', queue: 'default', below: 10 },
          },
        ],
      }),
    );
    const args = ['routines', 'apply', '-f', file, '--what-if', '--at', '2026-03-28T12:00:00Z', '--next', '2'];
    const table = await viewer(args);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('nothing was applied');
    expect(table.stdout).toMatch(/held\s+created\s+paused\s+0\s+0\s+-\s+paused\n/);
    // A condition is named, never evaluated by a what-if.
    expect(table.stdout).toMatch(
      /conditions \(evaluated when each fire fires; a what-if calls none\)\n.*\n\s*held\s+queue-depth default < 10\n/,
    );
    const answer = json((await viewer([...args, '-o', 'json'])).stdout);
    expect(answer.routines[0].condition).toBe('queue-depth default < 10');
    expect(answer.routines[1]).not.toHaveProperty('condition');
    expect(answer.routines.map((r: { routine: string; change: string }) => [r.routine, r.change])).toEqual([
      ['held', 'created'],
      ['morning', 'updated'],
      ['ping', 'removed'],
    ]);
    expect(answer.routines[1].next.map((n: { local: string }) => n.local)).toEqual([
      '2026-03-29T09:00:00.000+02:00',
      '2026-03-30T09:00:00.000+02:00',
    ]);
    expect((await api.call('GET', '/routines/held', { as: 'viewer' })).status).toBe(404);

    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      stringify({
        queues: [{ name: 'default' }],
        routines: [
          { ...morning, name: 'a', trigger: { kind: 'cron', cron: '* * *' } },
          { ...morning, name: 'b', trigger: { kind: 'manual' }, catchUpPolicy: 'sometimes' },
        ],
      }),
    );
    const refused = await viewer(['routines', 'apply', '-f', bad, '--what-if']);
    expect(refused.code).toBe(1);
    const lines = refused.stderr.trim().split('\n');
    expect(lines.pop()).toBe(`drover: ${bad} is invalid (2 problems); nothing was applied`);
    const validated = await drover(['validate', bad]);
    expect(lines).toEqual(validated.stderr.trim().split('\n').slice(0, -1));
  }, 30_000);

  it('fails with one line and a documented exit code: wrong token 4, viewer write 4, not found 5, bad input 1, usage 2, unreachable 3', async () => {
    const wrong = await drover(['status'], { env: { DROVER_API_URL: api.api.baseUrl, DROVER_TOKEN: 'nope' } });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(/^drover: the API at \S+ refused the token \(401/);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);

    const forbidden = await viewer(['routines', 'trigger', 'ping']);
    expect(forbidden.code).toBe(4);
    expect(forbidden.stderr).toMatch(/forbidden \(403\): .*needs role operator/);

    const missing = await viewer(['runs', 'get', 'no-such-run']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toMatch(/^drover: not found \(404\)/);

    const invalid = await admin(['enqueue', 'noop', '--priority', '5000']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^drover: .*\(400\): .*body\.priority/);

    const usage = await admin(['runs', 'ls', '--status', 'sleeping']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/argument 'sleeping' is invalid/);

    const closed = await closedPort();
    const down = await drover(['status'], { env: { DROVER_API_URL: `http://127.0.0.1:${closed}`, DROVER_TOKEN: 'x' } });
    expect(down.code).toBe(3);
    expect(down.stderr).toBe(
      `drover: cannot reach the Drover API at http://127.0.0.1:${closed}: connection refused (set --api-url or DROVER_API_URL)\n`,
    );
  });
});

/** 09:00 UTC of the day after `from` and of the day after `to` (the same instant unless a midnight fell between). */
function nineTomorrow(from: number, to: number): number[] {
  return [from, to].map((t) => Date.parse(`${new Date(t + 86_400_000).toISOString().slice(0, 10)}T09:00:00Z`));
}
