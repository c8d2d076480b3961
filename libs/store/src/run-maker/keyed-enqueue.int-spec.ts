import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { testStores, uniquePrefix, waitFor } from '@drover/testing';
import { enqueueAdHoc } from './ad-hoc-enqueue';
import { adHocRun } from './ad-hoc-run';

type Producer = ReturnType<typeof testStores>;

const NOW = 1_767_225_600_000;
const request = (jobType: string, queue: string, idempotencyKey: string, priority = 0) =>
  adHocRun(
    { jobType, payload: {}, queue, delayMs: 0, scheduledFor: null, priority, createdBy: 't', idempotencyKey },
    { now: NOW, random: Math.random, defaultQueue: 'q' },
  );
const keyed = (p: Producer, jobType: string, queue: string, key: string) =>
  enqueueAdHoc(p.runs, { run: request(jobType, queue, key), key });

/** Once a producer knows its queues (the first keyed enqueue into each), a keyed enqueue is one script call. */
async function warm(p: Producer): Promise<void> {
  await p.runs.policies.whenLive();
  for (const q of ['q', 'other']) await keyed(p, 'warm', q, `warm-${q}-${Math.random()}`);
}

describe('idempotent enqueue in one script call (real redis-server, real BullMQ)', () => {
  let producers: Producer[] = [];
  let events: QueueEvents | undefined;
  const producer = (prefix: string) => {
    const p = testStores('keyed', { prefix });
    producers.push(p);
    return p;
  };
  afterEach(async () => {
    await events?.close();
    events = undefined;
    await Promise.all(producers.map((p) => p.close()));
    producers = [];
  });

  it('sends one command for a turn’s keyed enqueues of new runs (an existing one is read after)', async () => {
    const p = producer(uniquePrefix('keyed'));
    await p.registry.put([{ name: 'q' }, { name: 'other' }]);
    await warm(p);
    const sent: string[] = [];
    const conn = p.connections.command;
    const original = conn.sendCommand.bind(conn);
    conn.sendCommand = ((cmd: { name: string }) => {
      sent.push(cmd.name);
      return original(cmd as never);
    }) as typeof conn.sendCommand;
    // And the socket's writes: one for the turn's enqueues (see AddsTogether).
    const socket = (conn as Redis).stream as unknown as Record<'_write' | '_writev', (...a: unknown[]) => void>;
    const writes: string[] = [];
    const [write, writev] = [socket._write, socket._writev];
    socket._write = (...a) => (writes.push('write'), write.apply(socket, a));
    socket._writev = (...a) => (writes.push('writev'), writev.apply(socket, a));
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => keyed(p, 'send', 'q', `k-${i}`)));
    } finally {
      conn.sendCommand = original;
      Object.assign(socket, { _write: write, _writev: writev });
    }
    expect(sent).toEqual(['evalsha']);
    expect(writes).toHaveLength(1);
    expect(await p.bull.get('q').getWaitingCount()).toBe(21);
  });

  it('makes one job for one key among racing producers on their own connections', async () => {
    const prefix = uniquePrefix('keyed-race');
    const all = [producer(prefix), producer(prefix), producer(prefix), producer(prefix)];
    await all[0]!.registry.put([{ name: 'q' }, { name: 'other' }]);
    for (const p of all) await warm(p);
    // Added jobs counted by BullMQ's own event reader, not by what the producers answer; from the
    // stream's current tail ('$' would drop events landing before its first read).
    const stream = all[0]!.keys.bullEvents('q');
    const tail = (await all[0]!.connections.command.xrevrange(stream, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
    events = new QueueEvents(all[0]!.keys.bullQueueName('q'), {
      connection: all[0]!.connections.open('blocking', 'events'),
      prefix: all[0]!.keys.bullPrefix,
      lastEventId: tail,
    });
    const added: string[] = [];
    events.on('waiting', ({ jobId }) => added.push(jobId));
    await events.waitUntilReady();
    const rounds = 20;
    const answers = await Promise.all(
      Array.from({ length: rounds }, (_, k) => all.map((p) => keyed(p, 'send', 'q', `race-${k}`))).flat(),
    );
    await waitFor('the added jobs to be reported', () => added.length >= rounds, { timeoutMs: 5_000 });
    await new Promise((r) => setTimeout(r, 200));
    expect(added.sort()).toEqual([...new Set(added)].sort());
    expect(added).toHaveLength(rounds);
    // Every producer answers the one run of its key.
    for (let k = 0; k < rounds; k++) {
      const ids = new Set(answers.slice(k * all.length, (k + 1) * all.length).map((a) => ('ids' in a ? a.ids : a)));
      expect(ids).toEqual(new Set([request('send', 'q', `race-${k}`).id]));
    }
  }, 20_000);

  it('does not re-create a canceled run, and reports a key bound to another queue or job type', async () => {
    const p = producer(uniquePrefix('keyed-rec'));
    await p.registry.put([{ name: 'q' }, { name: 'other' }]);
    await warm(p);
    const first = await keyed(p, 'send', 'q', 'k1');
    expect(first).toEqual({ ids: request('send', 'q', 'k1').id });
    expect((await p.runs.cancel(request('send', 'q', 'k1').id)).outcome).toBe('canceled');
    expect(await keyed(p, 'send', 'q', 'k1')).toEqual(first);
    expect(await p.bull.get('q').getJob(request('send', 'q', 'k1').id)).toBeUndefined();
    expect((await p.runs.get(request('send', 'q', 'k1').id))?.status).toBe('canceled');

    await keyed(p, 'send', 'q', 'k2');
    expect(await keyed(p, 'send', 'other', 'k2')).toMatchObject({
      conflict: { existing: { queue: 'q' }, requested: { queue: 'other' } },
    });
    expect(await keyed(p, 'mail', 'q', 'k2')).toMatchObject({
      conflict: { existing: { jobType: 'send' }, requested: { jobType: 'mail' } },
    });
    expect(await p.bull.get('other').getJob(request('send', 'other', 'k2').id)).toBeUndefined();
  });
});
