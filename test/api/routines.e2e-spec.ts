import { stringify } from 'yaml';
import { waitFor } from '@drover/testing';
import { ApiCluster, expectProblem } from './support/api-cluster';
import { anIso } from './support/iso';

const QUEUES = [{ name: 'default', concurrency: 5 }];
const FILE_ROUTINES = [
  { name: 'file-report', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' }, labels: { team: 'ops' } },
  { name: 'file-system', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' }, system: true },
];
const POLICY = { queues: QUEUES, routines: FILE_ROUTINES };

const daily = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  jobType: 'noop',
  queue: 'default',
  trigger: { kind: 'cron', cron: '0 2 * * *', tz: 'Europe/Berlin' },
  ...extra,
});

/** Routine definitions, drift and apply through a real api process (and a scheduler applying the file). */
describe('routines api: definitions, roles, drift and apply', () => {
  let api: ApiCluster;

  beforeAll(async () => {
    api = await ApiCluster.start('api-routines', { policy: POLICY, worker: false });
    await waitFor(
      'the scheduler to apply the policy file',
      async () => (await api.cluster.routines.get('file-report')) ?? undefined,
      {
        timeoutMs: 15_000,
      },
    );
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  const definitions = () => api.cluster.connections.command.hgetall(api.cluster.routines.definitionsKey);

  it('creates a routine (201, Location, ETag), refuses a second with the name (409), and reads it back', async () => {
    const created = await api.call('POST', '/routines', { as: 'operator', body: daily('nightly') });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/v1/routines/nightly');
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.body).toMatchObject({
      name: 'nightly',
      origin: 'api',
      drifted: false,
      version: 1,
      status: 'active',
      pause: null,
      disabledReason: null,
      launcher: { consecutiveFailures: 0, backoffUntil: null, lastError: null, disabledAt: null },
      lastRun: null,
      nextFireAt: anIso(),
      createdAt: anIso(),
      updatedAt: anIso(),
      createdBy: 'operator-token',
      definition: { name: 'nightly', priority: 'medium', catchUpPolicy: 'skip' },
    });
    expect(Date.parse(created.body.nextFireAt)).toBeGreaterThan(Date.now());

    const again = expectProblem(await api.call('POST', '/routines', { as: 'operator', body: daily('nightly') }), 409);
    expect(again.detail).toContain('routine "nightly" exists');

    const got = await api.call('GET', '/routines/nightly', { as: 'viewer' });
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe('"1"');
    expect(got.body).toEqual(created.body);
    expectProblem(await api.call('GET', '/routines/no-such', { as: 'viewer' }), 404);
  });

  it('names each invalid field and stores nothing', async () => {
    const before = await definitions();
    const bad = expectProblem(
      await api.call('POST', '/routines', {
        as: 'operator',
        body: daily('broken', { trigger: { kind: 'cron', cron: '61 * * * *' }, queue: 'nope' }),
      }),
      400,
    );
    expect(bad.errors).toEqual(
      expect.arrayContaining([
        { path: 'body.trigger.cron', message: expect.stringContaining('not a valid cron expression') },
      ]),
    );
    const queue = expectProblem(
      await api.call('POST', '/routines', { as: 'operator', body: daily('broken', { queue: 'nope' }) }),
      400,
    );
    expect(queue.errors).toEqual([
      { path: 'body.queue', message: expect.stringContaining('queue "nope" is not defined') },
    ]);
    const unknownField = expectProblem(
      await api.call('POST', '/routines', { as: 'operator', body: daily('broken', { shedule: 1 }) }),
      400,
    );
    // Named at its own path, with the hint a policy file's typo gets.
    expect(unknownField.errors).toEqual([
      { path: 'body.shedule', message: expect.stringMatching(/^unknown field "shedule"; (did you mean|valid fields)/) },
    ]);
    expect(await definitions()).toEqual(before);
  });

  it('lets a viewer read but not write (403), and no token nothing (401)', async () => {
    expectProblem(await api.call('POST', '/routines', { as: 'viewer', body: daily('viewer-made') }), 403);
    expectProblem(await api.call('PATCH', '/routines/nightly', { as: 'viewer', body: { owner: 'x' } }), 403);
    expectProblem(await api.call('POST', '/routines/nightly/pause', { as: 'viewer', body: {} }), 403);
    expectProblem(await api.call('DELETE', '/routines/nightly', { as: 'viewer' }), 403);
    expectProblem(await api.call('GET', '/routines', { as: 'none' }), 401);
    expect((await api.cluster.routines.get('viewer-made')) ?? null).toBeNull();
  });

  it('upserts with PUT (201 then 200) and refuses a stale If-Match (412) or another name in the body (400)', async () => {
    const made = await api.call('PUT', '/routines/put-me', { as: 'operator', body: daily('put-me') });
    expect(made.status).toBe(201);
    expect(made.headers.get('location')).toBe('/api/v1/routines/put-me');
    const { name: _omit, ...withoutName } = daily('put-me', { priority: 'high' });
    const changed = await api.call('PUT', '/routines/put-me', {
      as: 'operator',
      body: withoutName,
      headers: { 'if-match': '"1"' },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
    expect(changed.body).toMatchObject({ version: 2, definition: { priority: 'high' } });

    const stale = expectProblem(
      await api.call('PUT', '/routines/put-me', {
        as: 'operator',
        body: daily('put-me'),
        headers: { 'if-match': '"1"' },
      }),
      412,
    );
    expect(stale.detail).toContain('is at version 2, not 1');
    const renamed = expectProblem(
      await api.call('PUT', '/routines/put-me', { as: 'operator', body: daily('other') }),
      400,
    );
    expect(renamed.errors).toEqual([{ path: 'body.name', message: expect.stringContaining('cannot be renamed') }]);
    const badTag = expectProblem(
      await api.call('PUT', '/routines/put-me', {
        as: 'operator',
        body: daily('put-me'),
        headers: { 'if-match': 'v2' },
      }),
      400,
    );
    expect(badTag.errors?.[0]?.path).toBe('headers.if-match');
    expectProblem(
      await api.call('PUT', '/routines/not-there', {
        as: 'operator',
        body: daily('not-there'),
        headers: { 'if-match': '*' },
      }),
      412,
    );
    expect((await api.cluster.routines.get('put-me'))!.version).toBe(2);
  });

  it('patches with JSON merge patch: members merge, null removes, the result is validated whole', async () => {
    await api.call('POST', '/routines', {
      as: 'operator',
      body: daily('patch-me', { owner: 'alice', labels: { team: 'a', tier: 'gold' }, priority: 'high' }),
    });
    const patched = await api.call('PATCH', '/routines/patch-me', {
      as: 'operator',
      raw: JSON.stringify({
        owner: null,
        priority: null,
        labels: { tier: null, env: 'prod' },
        trigger: { cron: '0 3 * * *' },
      }),
      contentType: 'application/merge-patch+json',
      headers: { 'if-match': '"1"' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.definition).toMatchObject({
      labels: { team: 'a', env: 'prod' },
      priority: 'medium',
      trigger: { kind: 'cron', cron: '0 3 * * *', tz: 'Europe/Berlin' },
    });
    expect(patched.body.definition.owner).toBeUndefined();
    expect(patched.body).toMatchObject({ version: 2, updatedBy: 'operator-token', createdBy: 'operator-token' });

    expectProblem(
      await api.call('PATCH', '/routines/patch-me', {
        as: 'operator',
        body: { owner: 'bob' },
        headers: { 'if-match': '"1"' },
      }),
      412,
    );
    const invalid = expectProblem(
      await api.call('PATCH', '/routines/patch-me', { as: 'operator', body: { trigger: { cron: 'every day' } } }),
      400,
    );
    expect(invalid.errors?.[0]?.path).toBe('body.trigger.cron');
    expectProblem(await api.call('PATCH', '/routines/patch-me', { as: 'operator', body: [1, 2] }), 400);
    expectProblem(await api.call('PATCH', '/routines/nope', { as: 'operator', body: { owner: 'x' } }), 404);
    expect((await api.cluster.routines.get('patch-me'))!.version).toBe(2);
  });

  it('lists by name with cursor paging and filters on queue, status and label', async () => {
    for (const n of ['list-a', 'list-b', 'list-c']) {
      await api.call('POST', '/routines', { as: 'operator', body: daily(n, { labels: { group: 'listing' } }) });
    }
    await api.call('POST', '/routines/list-b/pause', { as: 'operator', body: { note: 'quiet' } });
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await api.call(
        'GET',
        `/routines?page_size=2&label=group=listing${token ? `&page_token=${token}` : ''}`,
        {
          as: 'viewer',
        },
      );
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      names.push(...page.body.items.map((r: { name: string }) => r.name));
      token = page.body.next_page_token;
    } while (token);
    expect(names).toEqual(['list-a', 'list-b', 'list-c']);

    const paused = await api.call('GET', '/routines?status=paused&label=group=listing', { as: 'viewer' });
    expect(paused.body.items.map((r: { name: string }) => r.name)).toEqual(['list-b']);
    expect(paused.body.items[0]).toMatchObject({ nextFireAt: null, pause: { note: 'quiet', by: 'operator-token' } });
    const active = await api.call('GET', '/routines?status=active&label=group=listing', { as: 'viewer' });
    expect(active.body.items.map((r: { name: string }) => r.name)).toEqual(['list-a', 'list-c']);
    const byTeam = await api.call('GET', '/routines?label=team=ops&queue=default', { as: 'viewer' });
    expect(byTeam.body.items.map((r: { name: string }) => r.name)).toEqual(['file-report']);
    expect((await api.call('GET', '/routines?queue=elsewhere', { as: 'viewer' })).body.items).toEqual([]);

    const bad = expectProblem(
      await api.call('GET', '/routines?page_token=!!&status=sleeping&label=team', { as: 'viewer' }),
      400,
    );
    expect(bad.errors?.map((e) => e.path).sort()).toEqual(['query.label', 'query.page_token', 'query.status']);
  });

  it('marks a file routine edited through the API as drifted; POST /apply overwrites the edit and clears it', async () => {
    const edited = await api.call('PATCH', '/routines/file-report', { as: 'operator', body: { priority: 'high' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      origin: 'file',
      drifted: true,
      drift: { by: 'operator-token', at: anIso() },
      definition: { priority: 'high' },
    });
    expect((await api.call('GET', '/routines/file-report', { as: 'viewer' })).body.drifted).toBe(true);

    const applied = await api.call('POST', '/apply', { as: 'admin', body: POLICY });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ dryRun: false, updated: ['file-report'], created: [], removed: [] });
    const after = await api.call('GET', '/routines/file-report', { as: 'viewer' });
    expect(after.body).toMatchObject({
      origin: 'file',
      drifted: false,
      drift: null,
      definition: { priority: 'medium' },
    });
  });

  it('applies a YAML bundle: a dry run answers the diff and writes nothing, the real one writes it', async () => {
    const bundle = {
      queues: [...QUEUES, { name: 'reports', concurrency: 2 }],
      routines: [FILE_ROUTINES[1], { ...FILE_ROUTINES[0], owner: 'ops' }, daily('file-new', { queue: 'reports' })],
    };
    await api.call('DELETE', '/routines/file-gone', { as: 'admin' });
    await api.cluster.routines.upsert(
      { ...(await api.cluster.routines.get('file-report'))!.def, name: 'file-gone' },
      'file',
      Date.now(),
    );
    const defsBefore = await definitions();
    const queuesBefore = await api.cluster.connections.command.hgetall(api.cluster.registry.hashKey);

    const dry = await api.call('POST', '/apply?dryRun=true', {
      as: 'admin',
      raw: stringify(bundle),
      contentType: 'application/yaml',
    });
    expect(dry.status).toBe(200);
    const expected = {
      created: ['file-new'],
      updated: ['file-report'],
      removed: ['file-gone'],
      unchanged: ['file-system'],
      queues: { created: ['reports'], updated: [], removed: [], unchanged: ['default'] },
    };
    expect(dry.body).toEqual({ dryRun: true, ...expected });
    expect(await definitions()).toEqual(defsBefore);
    expect(await api.cluster.connections.command.hgetall(api.cluster.registry.hashKey)).toEqual(queuesBefore);

    const real = await api.call('POST', '/apply', { as: 'admin', raw: stringify(bundle), contentType: 'text/yaml' });
    expect(real.body).toEqual({ dryRun: false, ...expected });
    expect((await api.cluster.routines.get('file-new'))?.origin).toBe('file');
    expect(await api.cluster.routines.get('file-gone')).toBeUndefined();
    expect((await api.cluster.routines.get('nightly'))?.origin).toBe('api');
    expect((await api.cluster.registry.get('reports'))?.concurrency).toBe(2);

    const again = await api.call('POST', '/apply', { as: 'admin', body: bundle });
    expect(again.body).toMatchObject({
      created: [],
      updated: [],
      removed: [],
      unchanged: ['file-system', 'file-report', 'file-new'],
    });
  });

  it('refuses an invalid bundle naming the field, and callers below admin', async () => {
    const before = await definitions();
    const bad = expectProblem(
      await api.call('POST', '/apply', {
        as: 'admin',
        body: { queues: QUEUES, routines: [daily('file-bad', { trigger: { kind: 'cron', cron: '* * *' } })] },
      }),
      400,
    );
    expect(bad.errors).toEqual([
      { path: 'body.routines[file-bad].trigger.cron', message: expect.stringContaining('cron') },
    ]);
    const yaml = expectProblem(
      await api.call('POST', '/apply', { as: 'admin', raw: 'queues: [', contentType: 'text/yaml' }),
      400,
    );
    expect(yaml.errors?.[0]?.message).toContain('not valid YAML');
    expectProblem(await api.call('POST', '/apply?dryRun=maybe', { as: 'admin', body: POLICY }), 400);
    expectProblem(await api.call('POST', '/apply', { as: 'operator', body: POLICY }), 403);
    const plain = expectProblem(
      await api.call('POST', '/apply', { as: 'admin', raw: 'queues: []', contentType: 'text/plain' }),
      415,
    );
    expect(plain.detail).toContain('application/yaml');
    expect(await definitions()).toEqual(before);
  });

  it('deletes: operators may not delete a system routine (403 naming why), admins may; If-Match holds', async () => {
    const denied = expectProblem(await api.call('DELETE', '/routines/file-system', { as: 'operator' }), 403);
    expect(denied.detail).toBe(
      'deleting system routine "file-system" needs role admin; token "operator-token" has role operator',
    );
    expect(await api.cluster.routines.get('file-system')).toBeDefined();
    expectProblem(
      await api.call('DELETE', '/routines/nightly', { as: 'operator', headers: { 'if-match': '"9"' } }),
      412,
    );
    const gone = await api.call('DELETE', '/routines/nightly', { as: 'operator', headers: { 'if-match': '"1"' } });
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expectProblem(await api.call('DELETE', '/routines/nightly', { as: 'operator' }), 404);
    expect((await api.call('DELETE', '/routines/file-system', { as: 'admin' })).status).toBe(204);
  });
});
