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
      { path: 'query.colour', message: 'unknown field "colour"; valid fields: page_size, page_token' },
    ]);
  });
});
