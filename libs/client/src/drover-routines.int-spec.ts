import type { INestApplicationContext } from '@nestjs/common';
import { InvalidPayloadError, InvalidRoutineError, MAX_PAYLOAD_BYTES, RoutineNotFoundError } from '@drover/core';
import { RoutineNotTriggerableError } from '@drover/store';
import { testRedisUrl, uniquePrefix } from '@drover/testing';
import type { DroverClient } from './drover-client.service';
import { defineQueues, startProducer, startWorker, starts } from '../test/client-test-harness';

describe('DroverClient routines with a real redis-server and a worker runtime', () => {
  let worker: INestApplicationContext;
  let producer: { app: INestApplicationContext; client: DroverClient };
  let client: DroverClient;

  beforeAll(async () => {
    const prefix = uniquePrefix('routines');
    await defineQueues(prefix, [{ name: 'default' }]);
    worker = await startWorker(prefix);
    producer = await startProducer({ redis: testRedisUrl(), prefix, name: 'ops-api' });
    client = producer.client;
  });

  afterAll(async () => {
    await producer?.app.close();
    await worker?.close();
  });

  it('upserts a routine (defaults filled in), reports unchanged, and gets it back', async () => {
    const def = { name: 'nightly-echo', jobType: 'test.echo', queue: 'default', trigger: { kind: 'manual' as const } };
    const created = await client.upsertRoutine(def);
    expect(created).toMatchObject({
      outcome: 'created',
      routine: { origin: 'api', version: 1, def: { ...def, priority: 'medium', status: 'active', payload: {} } },
    });
    expect((await client.upsertRoutine(def)).outcome).toBe('unchanged');
    expect((await client.upsertRoutine({ ...def, payload: { n: 1 } })).outcome).toBe('updated');
    expect(await client.getRoutine('nightly-echo')).toMatchObject({ version: 2, def: { payload: { n: 1 } } });
    expect(await client.getRoutine('missing')).toBeNull();
  });

  it('refuses an invalid routine with field-named errors and writes nothing', async () => {
    const err = await client
      .upsertRoutine({
        name: 'bad-cron',
        jobType: 'test.echo',
        queue: 'default',
        trigger: { kind: 'cron', cron: '61 * * * *' },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRoutineError);
    expect((err as InvalidRoutineError).message).toMatch(
      /^invalid routine: routines\[bad-cron\]\.trigger\.cron: "61 \* \* \* \*" is not a valid cron expression/,
    );
    await expect(
      client.upsertRoutine({ name: 'bad-queue', jobType: 'test.echo', queue: 'nope', trigger: { kind: 'manual' } }),
    ).rejects.toThrow(/queue/);
    expect(await client.getRoutine('bad-cron')).toBeNull();
    expect(await client.getRoutine('bad-queue')).toBeNull();
  });

  it("refuses what is over core's limits as the api and a policy file do: typed errors, nothing stored", async () => {
    const def = { name: 'limited', jobType: 'test.echo', queue: 'default', trigger: { kind: 'manual' as const } };
    const huge = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`label-${i}`, 'v'.repeat(1000)]));
    const refused = await client.upsertRoutine({ ...def, labels: huge }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidRoutineError);
    expect((refused as InvalidRoutineError).errors[0]).toBe(
      'routines[limited].labels: has 400 labels; the limit is 64',
    );
    expect(await client.getRoutine('limited')).toBeNull();

    const { routine } = await client.upsertRoutine({ ...def, labels: { team: 'ops' } });
    await expect(client.upsertRoutine({ ...def, owner: 'o'.repeat(201) })).rejects.toThrow(
      'invalid routine: routines[limited].owner: has 201 characters; the limit is 200',
    );
    await expect(client.pauseRoutine('limited', { note: 'n'.repeat(501) })).rejects.toThrow(
      'note has 501 characters; the limit is 500',
    );
    await expect(client.trigger('limited', { payload: { b: 'x'.repeat(MAX_PAYLOAD_BYTES - 7) } })).rejects.toThrow(
      InvalidPayloadError,
    );
    expect(await client.getRoutine('limited')).toEqual(routine);
  });

  it('triggers a paused routine by hand; pause/resume change only the status; archived or missing refuse', async () => {
    await client.upsertRoutine({
      name: 'hourly-echo',
      jobType: 'test.echo',
      queue: 'default',
      trigger: { kind: 'interval', everyMs: 3_600_000 },
      payload: { from: 'routine' },
    });
    expect(await client.pauseRoutine('hourly-echo')).toMatchObject({ def: { status: 'paused' } });
    const id = await client.trigger('hourly-echo');
    expect(await client.waitForRun(id, { timeoutMs: 15_000 })).toMatchObject({
      status: 'succeeded',
      routine: 'hourly-echo',
      source: 'manual',
      createdBy: 'ops-api',
      result: { echo: { from: 'routine' } },
    });
    const custom = await client.trigger('hourly-echo', { payload: { from: 'caller' } });
    expect(await client.waitForRun(custom, { timeoutMs: 15_000 })).toMatchObject({
      result: { echo: { from: 'caller' } },
    });
    expect(starts.filter((s) => s.id === id || s.id === custom)).toHaveLength(2);
    expect((await client.listRuns({ routine: 'hourly-echo' })).map((r) => r.id)).toEqual(
      expect.arrayContaining([id, custom]),
    );
    expect(await client.resumeRoutine('hourly-echo')).toMatchObject({ def: { status: 'active' } });

    await client.upsertRoutine({
      name: 'old-echo',
      jobType: 'test.echo',
      queue: 'default',
      trigger: { kind: 'manual' },
      status: 'archived',
    });
    await expect(client.trigger('old-echo')).rejects.toThrow(RoutineNotTriggerableError);
    await expect(client.trigger('missing')).rejects.toThrow(RoutineNotFoundError);
    await expect(client.pauseRoutine('missing')).rejects.toThrow('routine "missing" does not exist');
  });

  it('pauses with a note and an end, and refuses an end that is not in the future', async () => {
    await client.upsertRoutine({
      name: 'nightly-echo',
      jobType: 'test.echo',
      queue: 'default',
      trigger: { kind: 'cron', cron: '0 2 * * *' },
    });
    const until = new Date(Date.now() + 3_600_000);
    expect(await client.pauseRoutine('nightly-echo', { note: 'freeze week', until })).toMatchObject({
      def: { status: 'paused' },
      pause: { note: 'freeze week', until: until.getTime(), by: 'client' },
    });
    await expect(client.pauseRoutine('nightly-echo', { until: new Date(Date.now() - 1000) })).rejects.toThrow(
      /invalid pauseRoutine options: until must be in the future/,
    );
    // The refused request changed nothing.
    expect((await client.getRoutine('nightly-echo'))!.pause!.note).toBe('freeze week');
  });
});
