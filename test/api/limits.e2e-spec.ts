import { MAX_PAYLOAD_BYTES } from '@drover/core';
import { ApiCluster, expectProblem } from './support/api-cluster';

const QUEUES = [{ name: 'default' }];

const manual = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  jobType: 'noop',
  queue: 'default',
  trigger: { kind: 'manual' },
  ...extra,
});

/** The attack: 400 labels of 1 kB each (a 400 kB definition). */
const HUGE_LABELS = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`label-${i}`, 'v'.repeat(1000)]));

/** A payload whose JSON is exactly `bytes` bytes. */
const payloadOf = (bytes: number) => ({ b: 'x'.repeat(bytes - 8) });

/**
 * The definition limits of core, over HTTP against a real api: every write path refuses the same
 * input with a 400 naming the field, and nothing stored changes.
 */
describe('definition limits over the api', () => {
  let api: ApiCluster;

  beforeAll(async () => {
    api = await ApiCluster.start('api-limits', { policy: { queues: QUEUES }, scheduler: true, worker: false });
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  const definitions = () => api.cluster.connections.command.hgetall(api.cluster.routines.definitionsKey);

  it('refuses a routine with 400 labels of 1 kB (POST, PUT and apply) naming labels, and stores nothing', async () => {
    const before = await definitions();
    for (const write of [
      () => api.call('POST', '/routines', { as: 'operator', body: manual('huge', { labels: HUGE_LABELS }) }),
      () => api.call('PUT', '/routines/huge', { as: 'operator', body: manual('huge', { labels: HUGE_LABELS }) }),
    ]) {
      const answer = await write();
      const bad = expectProblem(answer, 400);
      expect(bad.errors?.[0]).toEqual({ path: 'body.labels', message: 'has 400 labels; the limit is 64' });
      expect(bad.errors).toHaveLength(7);
      // The answer names the problem; it does not echo the 400 kB back.
      expect(answer.text.length).toBeLessThan(2000);
    }
    const applied = expectProblem(
      await api.call('POST', '/apply', {
        as: 'admin',
        body: { queues: QUEUES, routines: [manual('huge', { labels: HUGE_LABELS })] },
      }),
      400,
    );
    expect(applied.errors?.[0]).toEqual({
      path: 'body.routines[huge].labels',
      message: 'has 400 labels; the limit is 64',
    });
    expect(await definitions()).toEqual(before);
    expectProblem(await api.call('GET', '/routines/huge', { as: 'viewer' }), 404);
  });

  it('refuses a PATCH that would push a routine over a limit; its ETag and definition stay as they were', async () => {
    const made = await api.call('POST', '/routines', {
      as: 'operator',
      body: manual('patched', { labels: { team: 'ops' } }),
    });
    expect(made.status).toBe(201);
    const stored = await api.cluster.connections.command.hget(api.cluster.routines.definitionsKey, 'patched');
    const etag = made.headers.get('etag');

    // Merged with the stored `team`: 65 labels.
    const more64 = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, 'v']));
    for (const [patch, path, message] of [
      [{ labels: more64 }, 'body.labels', 'has 65 labels; the limit is 64'],
      [{ labels: { team: 'v'.repeat(64) } }, 'body.labels', 'the value of "team" has 64 characters; the limit is 63'],
      [{ owner: 'o'.repeat(201) }, 'body.owner', 'has 201 characters; the limit is 200'],
      [
        { payload: payloadOf(MAX_PAYLOAD_BYTES + 1) },
        'body.payload',
        'is 262145 bytes as JSON; the limit is 262144 bytes (256 KiB)',
      ],
    ] as const) {
      const bad = expectProblem(
        await api.call('PATCH', '/routines/patched', { as: 'operator', body: patch, headers: { 'if-match': etag! } }),
        400,
      );
      expect(bad.errors).toEqual([{ path, message }]);
    }
    const after = await api.call('GET', '/routines/patched', { as: 'viewer' });
    expect(after.headers.get('etag')).toBe(etag);
    expect(after.body.definition).toEqual(made.body.definition);
    expect(await api.cluster.connections.command.hget(api.cluster.routines.definitionsKey, 'patched')).toBe(stored);

    // At the limit it is accepted: 64 labels.
    const { k63: _drop, ...more63 } = more64;
    const ok = await api.call('PATCH', '/routines/patched', { as: 'operator', body: { labels: more63 } });
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.definition.labels)).toHaveLength(64);
  });

  it('holds routine payloads, trigger payloads and ad-hoc job payloads to the same 256 KiB', async () => {
    const atLimit = payloadOf(MAX_PAYLOAD_BYTES);
    const over = payloadOf(MAX_PAYLOAD_BYTES + 1);
    const message = 'is 262145 bytes as JSON; the limit is 262144 bytes (256 KiB)';

    const routine = await api.call('POST', '/routines', {
      as: 'operator',
      body: manual('big-payload', { payload: atLimit }),
    });
    expect(routine.status).toBe(201);
    const routineOver = expectProblem(
      await api.call('POST', '/routines', { as: 'operator', body: manual('too-big', { payload: over }) }),
      400,
    );
    expect(routineOver.errors).toEqual([{ path: 'body.payload', message }]);

    const triggered = await api.call('POST', '/routines/big-payload/trigger', {
      as: 'operator',
      body: { payload: atLimit },
    });
    expect(triggered.status).toBe(201);
    const triggerOver = expectProblem(
      await api.call('POST', '/routines/big-payload/trigger', { as: 'operator', body: { payload: over } }),
      400,
    );
    expect(triggerOver.errors).toEqual([{ path: 'body.payload', message }]);

    const job = await api.call('POST', '/jobs', { as: 'operator', body: { jobType: 'noop', payload: atLimit } });
    expect(job.status).toBe(201);
    const jobOver = expectProblem(
      await api.call('POST', '/jobs', { as: 'operator', body: { jobType: 'noop', payload: over } }),
      400,
    );
    expect(jobOver.errors).toEqual([{ path: 'body.payload', message }]);
  });

  it("bounds a pause's note and an idempotency key the same way for every caller", async () => {
    await api.call('POST', '/routines', { as: 'operator', body: manual('keyed') });
    const note = expectProblem(
      await api.call('POST', '/routines/keyed/pause', { as: 'operator', body: { note: 'n'.repeat(501) } }),
      400,
    );
    expect(note.errors).toEqual([{ path: 'body.note', message: 'has 501 characters; the limit is 500' }]);
    expect((await api.call('GET', '/routines/keyed', { as: 'viewer' })).body.pause).toBeNull();

    const key = (n: number) => ({ 'Idempotency-Key': 'k'.repeat(n) });
    const message = 'must be 1-1024 printable ASCII characters';
    expect((await api.call('POST', '/routines/keyed/trigger', { as: 'operator', headers: key(1024) })).status).toBe(
      201,
    );
    for (const [path, body] of [
      ['/routines/keyed/trigger', {}],
      ['/jobs', { jobType: 'noop', payload: {} }],
    ] as const) {
      const bad = expectProblem(await api.call('POST', path, { as: 'operator', headers: key(1025), body }), 400);
      expect(bad.errors).toEqual([{ path: 'headers.idempotency-key', message }]);
    }
  });
});
