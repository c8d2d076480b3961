import { ApiCluster, expectProblem } from './support/api-cluster';

/** What every route shares: auth, roles, problem documents, body limits, rate limits, the OpenAPI document. */
describe('api platform (real api process)', () => {
  let api: ApiCluster;

  beforeAll(async () => {
    api = await ApiCluster.start('api-platform', {
      policy: { queues: [{ name: 'default' }] },
      scheduler: false,
      worker: false,
      rateLimitPerMinute: 5,
    });
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  it('serves the OpenAPI document without a token', async () => {
    const doc = await api.call('GET', '/openapi.json', { as: 'none' });
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ openapi: '3.1.0', paths: expect.any(Object) });
  });

  it('401 without a token or with a wrong one, naming what to send; 403 below the route role', async () => {
    const none = expectProblem(await api.call('GET', '/audit', { as: 'none' }), 401);
    expect(none.detail).toContain('Authorization: Bearer');
    const wrong = expectProblem(await api.call('GET', '/audit', { as: { token: 'not-a-token' } }), 401);
    expect(wrong.detail).toBe('the bearer token is not valid');
    const viewer = expectProblem(await api.call('GET', '/audit', { as: 'viewer' }), 403);
    expect(viewer.detail).toBe('this route needs role admin; token "viewer-token" has role viewer');
    expect((await api.call('GET', '/audit', { as: 'admin' })).status).toBe(200);
  });

  it('answers unknown routes and invalid queries with problem documents naming the field', async () => {
    expectProblem(await api.call('GET', '/no-such-thing'), 404);
    const bad = expectProblem(await api.call('GET', '/audit?page_size=0&colour=red'), 400);
    expect(bad.errors).toEqual([
      { path: 'query.page_size', message: expect.stringContaining('>=1') },
      {
        path: 'query.colour',
        message: 'unknown field "colour"; valid fields: log, page_size, page_token, token, action, target, from, to',
      },
    ]);
  });
});

describe('api platform: bodies, rate limits and metrics (real api process)', () => {
  let api: ApiCluster;
  const job = { jobType: 'noop', payload: {} };

  beforeAll(async () => {
    api = await ApiCluster.start('api-limits', {
      policy: { queues: [{ name: 'default' }] },
      scheduler: false,
      worker: false,
      rateLimitPerMinute: 5,
    });
    await api.cluster.registry.put([{ name: 'default' }]); // no scheduler here to apply the policy file
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  const queued = () => api.cluster.bull.get('default').getJobCounts('waiting', 'prioritized', 'delayed');

  it('a body that is not JSON is a 400, one over 1 MiB a 413; neither stores anything', async () => {
    const before = await queued();
    const broken = expectProblem(await api.call('POST', '/jobs', { raw: '{"jobType": "noop",', as: 'admin' }), 400);
    expect(broken.detail).toBe('the request body is not valid JSON');
    const huge = JSON.stringify({ ...job, payload: { blob: 'x'.repeat(1024 * 1024) } });
    const tooLarge = expectProblem(await api.call('POST', '/jobs', { raw: huge, as: 'admin' }), 413);
    expect(tooLarge.detail).toBe('the request body is over 1 MiB');
    expect(await queued()).toEqual(before);
  });

  it('limits mutating calls per token (429 with Retry-After) while other tokens and reads go on', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api.call('POST', '/jobs', { body: job, as: 'operator' })).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    const limited = expectProblem(await api.call('POST', '/jobs', { body: job, as: 'operator' }), 429);
    expect(limited.detail).toContain('too many mutating requests');
    expect((await api.call('POST', '/jobs', { body: job, as: 'operator' })).headers.get('retry-after')).toBe('1');
    expect((await api.call('POST', '/jobs', { body: job, as: 'admin' })).status).toBe(201);
    expect((await api.call('GET', '/runs', { as: 'operator' })).status).toBe(200);
  });

  it('counts requests by route template, method and code — never by run id', async () => {
    const text = await (await fetch(`${api.api.baseUrl}/metrics`)).text();
    expect(text).toMatch(/^drover_api_requests_total\{route="\/api\/v1\/jobs",method="POST",code="201"\} [1-9]\d*$/m);
    expect(text).toMatch(/^drover_api_requests_total\{route="\/api\/v1\/jobs",method="POST",code="429"\} [1-9]\d*$/m);
    expect(text).toMatch(/^drover_api_request_duration_seconds_count\{route="\/api\/v1\/runs",method="GET"\} [1-9]/m);
    expect(text).not.toMatch(/drover_api_requests_total\{route="[^"]*r-/);
  });
});

describe('api platform: development mode (no tokens file)', () => {
  let api: ApiCluster;

  beforeAll(async () => {
    api = await ApiCluster.start('api-dev', {
      policy: { queues: [{ name: 'default' }] },
      scheduler: false,
      worker: false,
      devMode: true,
    });
    await api.cluster.registry.put([{ name: 'default' }]);
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  it('serves loopback clients as admin without a token, warning loudly at start', async () => {
    expect((await api.call('GET', '/audit', { as: 'none' })).status).toBe(200);
    expect((await api.call('POST', '/jobs', { as: 'none', body: { jobType: 'noop', payload: {} } })).status).toBe(201);
    const audit = await api.call('GET', '/audit', { as: 'none' });
    expect(audit.body.items[0]).toMatchObject({ token: 'dev', role: 'admin', action: 'enqueueJob', status: 201 });
    expect(api.api.output()).toContain('DEVELOPMENT MODE: DROVER_API_TOKENS_FILE is unset');
  });
});
