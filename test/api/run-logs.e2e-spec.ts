import { waitFor } from '@drover/testing';
import { droverAs } from '../cli/support/drover-cli';
import { ApiCluster, expectProblem } from './support/api-cluster';
import { anIso } from './support/iso';
import { expectStream, SseConnection } from './support/sse';

/** What the built-in `sleep` writes to its run's log for 2.5 s (a step a second). */
const SLEEP_LINES = ['sleeping 2500 ms', 'slept 1000 of 2500 ms', 'slept 2000 of 2500 ms', 'slept 2500 ms'];

/**
 * A run's log (`ctx.log`) end to end: the built-in `sleep` handler writes lines in a real worker;
 * the api pages and streams them over HTTP; the CLI binary prints and follows them.
 */
describe("a run's log over the API and the CLI (real api + scheduler + worker)", () => {
  let api: ApiCluster;
  const open: SseConnection[] = [];

  beforeAll(async () => {
    api = await ApiCluster.start('api-run-logs', {
      policy: {
        queues: [
          { name: 'default', concurrency: 5, maxAttempts: 1 },
          { name: 'short', concurrency: 5, maxAttempts: 1, retention: { logLines: 2 } },
        ],
      },
    });
  }, 60_000);

  afterAll(async () => {
    open.forEach((s) => s.close());
    await api?.close();
  }, 30_000);

  const sleep = async (queue = 'default'): Promise<string> => {
    const res = await api.call('POST', '/jobs', {
      as: 'operator',
      body: { jobType: 'sleep', payload: { ms: 2500 }, queue },
    });
    expect(res.status).toBe(201);
    return res.body.runId as string;
  };
  const stream = async (path: string, headers: Record<string, string> = {}) => {
    const s = expectStream(await SseConnection.open(api, path, 'viewer', headers));
    open.push(s);
    return s;
  };
  const statusOf = async (id: string) => (await api.call('GET', `/runs/${id}`, { as: 'viewer' })).body.status;

  it('streams the lines as the handler writes them, ends once the run settled, and pages them by number', async () => {
    const id = await sleep();
    await waitFor('the run running', async () => (await statusOf(id)) === 'running');
    const live = await stream(`/runs/${id}/logs/stream`);
    await live.waitFor('the first lines', (e) => e.event === 'line');
    expect(await statusOf(id)).toBe('running'); // a line arrived while the run was still going
    await live.waitForEnd(15_000);
    expect(live.json('line').map((l) => l.message)).toEqual(SLEEP_LINES);
    expect(live.events.filter((e) => e.event === 'line').map((e) => e.id)).toEqual(['1', '2', '3', '4']);
    expect(live.json('end')).toEqual([{ id, next: 5 }]);
    expect(await statusOf(id)).toBe('succeeded');

    const page = await api.call('GET', `/runs/${id}/logs`, { as: 'viewer' });
    expect(page.status).toBe(200);
    expect(page.body).toEqual({
      lines: SLEEP_LINES.map((message, i) => ({
        seq: i + 1,
        at: anIso(),
        message,
        ...(i === 1 && { fields: { percent: 40 } }),
        ...(i === 2 && { fields: { percent: 80 } }),
      })),
      next: 5,
      dropped: 0,
    });
    const second = await api.call('GET', `/runs/${id}/logs?from=3&limit=1`, { as: 'viewer' });
    expect(second.body).toMatchObject({ lines: [{ seq: 3, message: SLEEP_LINES[2] }], next: 4 });

    // A reconnecting EventSource sends the last line it saw: the stream resumes after it.
    const resumed = await stream(`/runs/${id}/logs/stream`, { 'last-event-id': '2' });
    await resumed.waitForEnd();
    expect(resumed.json('line').map((l) => l.seq)).toEqual([3, 4]);
  });

  it("keeps the queue's retention.logLines newest lines and says how many are gone; 404 for an unknown run", async () => {
    const id = await sleep('short');
    await waitFor('the run to succeed', async () => (await statusOf(id)) === 'succeeded', { timeoutMs: 15_000 });
    const page = await api.call('GET', `/runs/${id}/logs`, { as: 'viewer' });
    expect(page.body).toMatchObject({ lines: [{ seq: 3 }, { seq: 4 }], next: 5, dropped: 2 });
    expectProblem(await api.call('GET', '/runs/no-such-run/logs', { as: 'viewer' }), 404);
    const gone = await SseConnection.open(api, '/runs/no-such-run/logs/stream');
    expect(gone).toMatchObject({ status: 404 });
  });

  it('`drover runs logs --follow` prints the lines live and exits once the run ended; without it, what is kept', async () => {
    const viewer = droverAs(api, 'viewer');
    const id = await sleep();
    const followed = await viewer(['runs', 'logs', id, '--follow'], { timeoutMs: 20_000 });
    expect(followed.stderr).toBe('');
    expect(followed.code).toBe(0);
    expect(await statusOf(id)).toBe('succeeded');
    const printed = followed.stdout.trimEnd().split('\n');
    expect(printed.map((l) => l.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC {2}/, ''))).toEqual([
      SLEEP_LINES[0],
      `${SLEEP_LINES[1]}  {"percent":40}`,
      `${SLEEP_LINES[2]}  {"percent":80}`,
      SLEEP_LINES[3],
    ]);
    const json = await viewer(['-o', 'json', 'runs', 'logs', id]);
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { message: string }[]).map((l) => l.message)).toEqual(SLEEP_LINES);
  });
});
