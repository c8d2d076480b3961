import type { INestApplicationContext } from '@nestjs/common';
import { DroverMetrics } from '@drover/metrics';
import { uniquePrefix } from '@drover/testing';
import { metric, newRun, producer, type Harness } from '../testing/runtime-harness';
import { droverApp, MailProcessor, MailProducer, plainApp, resetSeen, seen } from '../testing/mail-app';

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a @nestjs/bullmq app switched to Drover by its module imports (real Redis, real BullMQ)', () => {
  let p: Harness;
  let app: INestApplicationContext | undefined;

  beforeEach(() => resetSeen());
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await p?.close();
  });

  it('before the switch: the same app runs on @nestjs/bullmq alone', async () => {
    const prefix = uniquePrefix('bull');
    p = await producer(prefix, []);
    app = await plainApp(prefix);
    const job = await app.get(MailProducer).send('welcome', 'ada@example.com');
    await until('the plain worker', () => seen.completed.includes(job.id!));
    expect(seen.jobs).toEqual([expect.objectContaining({ name: 'welcome', data: { to: 'ada@example.com' } })]);
  });

  it('runs the unchanged processor under Drover; a plain queue.add job is a run of source bullmq', async () => {
    const prefix = uniquePrefix('bull');
    p = await producer(prefix, [{ name: 'mail' }]);
    app = await droverApp(prefix);
    const job = await app.get(MailProducer).send('welcome', 'ada@example.com');
    await until('the run to end', async () => (await p.runs.get(job.id!))?.status === 'succeeded');

    // The processor got the job as BullMQ made it, and its @OnWorkerEvent listener heard it.
    expect(seen.jobs).toEqual([
      { id: job.id, name: 'welcome', data: { to: 'ada@example.com' }, attemptsMade: 0, at: expect.any(Number) },
    ]);
    await until('the completed event', () => seen.completed.includes(job.id!));
    expect(app.get(MailProcessor).worker.name).toBe('mail');

    const run = await p.runs.get(job.id!);
    expect(run).toMatchObject({
      id: job.id,
      queue: 'mail',
      jobType: 'welcome',
      source: 'bullmq',
      routine: null,
      scheduledFor: null,
      payload: { to: 'ada@example.com' },
      status: 'succeeded',
      attempt: 1,
      createdAt: job.timestamp,
      worker: 'mail-worker',
      progress: 50,
      result: { sent: 'ada@example.com' },
    });
    // The listing (GET /runs) shows it the same way.
    expect(await p.runs.listRecent({ queue: 'mail' })).toEqual([
      expect.objectContaining({ id: job.id, source: 'bullmq', payload: { to: 'ada@example.com' } }),
    ]);
    expect(await metric(app.get(DroverMetrics), 'succeeded', 'mail')).toBe(1);
  });

  it("retries a failing job with the queue's backoff and parks it after the queue's attempts", async () => {
    const prefix = uniquePrefix('bull');
    p = await producer(prefix, [{ name: 'mail', maxAttempts: 3, backoff: { type: 'fixed', delayMs: 150 } }]);
    app = await droverApp(prefix);
    const job = await app.get(MailProducer).send('bounce', 'bob@example.com'); // no `attempts` option
    await until('the run to park', async () => (await p.runs.get(job.id!))?.status === 'parked');

    expect(seen.jobs.map((j) => j.attemptsMade)).toEqual([0, 1, 2]);
    expect(seen.jobs[1]!.at - seen.jobs[0]!.at).toBeGreaterThanOrEqual(145);
    expect(seen.jobs[2]!.at - seen.jobs[1]!.at).toBeGreaterThanOrEqual(145);
    const run = await p.runs.get(job.id!);
    expect(run).toMatchObject({
      status: 'parked',
      source: 'bullmq',
      attempt: 3,
      maxAttempts: 3,
      reason: 'attempts-exhausted',
      payload: { to: 'bob@example.com' },
    });
    expect(run!.errors!.map((e) => [e.attempt, e.message])).toEqual([
      [1, 'mailbox of bob@example.com is full'],
      [2, 'mailbox of bob@example.com is full'],
      [3, 'mailbox of bob@example.com is full'],
    ]);
    expect((await p.runs.listParked('mail')).map((r) => r.id)).toEqual([job.id]);
    const metrics = app.get(DroverMetrics);
    expect([await metric(metrics, 'retried', 'mail'), await metric(metrics, 'parked', 'mail')]).toEqual([2, 1]);
  });

  it("keeps to the queue's concurrency, whatever the processor's own worker options", async () => {
    const prefix = uniquePrefix('bull');
    p = await producer(prefix, [{ name: 'mail', concurrency: 2 }]);
    app = await droverApp(prefix);
    const mail = app.get(MailProducer);
    const jobs = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => mail.send('digest', `u${i}@example.com`, 120)));
    await until('all six runs', async () => {
      const runs = await Promise.all(jobs.map((j) => p.runs.get(j.id!)));
      return runs.every((r) => r?.status === 'succeeded');
    });
    expect(seen.jobs).toHaveLength(6);
    expect(seen.maxActive).toBe(2);
    // Drover's Worker ran every one: @nestjs/bullmq made no second Worker competing for them.
    const runs = await Promise.all(jobs.map((j) => p.runs.get(j.id!)));
    expect(runs.map((r) => r?.worker)).toEqual(jobs.map(() => 'mail-worker'));
    expect(app.get(MailProcessor).worker.opts.name).toBe('mail-worker');
  });

  it("hands the processor a Drover run's payload as job.data (an enqueue through the API, a routine)", async () => {
    const prefix = uniquePrefix('bull');
    p = await producer(prefix, [{ name: 'mail' }]);
    app = await droverApp(prefix);
    await p.runs.enqueue(newRun('api-1', 'welcome', { queue: 'mail', payload: { to: 'eve@example.com' } }));
    const { run } = await p.runs.waitForTerminal('api-1', 10_000);
    expect(run).toMatchObject({ status: 'succeeded', source: 'api', result: { sent: 'eve@example.com' } });
    expect(seen.jobs).toEqual([
      expect.objectContaining({ id: 'api-1', name: 'welcome', data: { to: 'eve@example.com' } }),
    ]);
  });

  it('consumes the jobs a plain app left in the queue before the switch', async () => {
    const prefix = uniquePrefix('bull');
    p = await producer(prefix, [{ name: 'mail' }]);
    // The old deployment: its worker is stopped, its producers went on adding.
    const before = await plainApp(prefix);
    await before.get(MailProcessor).worker.close();
    const mail = before.get(MailProducer);
    const waiting = await Promise.all(['a', 'b', 'c'].map((to) => mail.send('welcome', `${to}@example.com`)));
    const delayed = await mail.queue.add('welcome', { to: 'later@example.com' }, { delay: 300 });
    await before.close();
    expect(seen.jobs).toEqual([]);

    app = await droverApp(prefix);
    const ids = [...waiting, delayed].map((j) => j.id!);
    await until('the jobs from before the switch', async () => {
      const runs = await Promise.all(ids.map((id) => p.runs.get(id)));
      return runs.every((r) => r?.status === 'succeeded');
    });
    expect(seen.jobs.map((j) => j.data)).toEqual([
      { to: 'a@example.com' },
      { to: 'b@example.com' },
      { to: 'c@example.com' },
      { to: 'later@example.com' },
    ]);
  });
});
