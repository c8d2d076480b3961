import { httpRun, testCluster, type TestCluster } from './support/cluster';
import { Oracle } from './support/oracle';

/**
 * DROVER_HTTP_ALLOW in a real worker process, against a real receiver that counts what reaches it:
 * an entry covers whole path segments, a path that could be read as another path is refused, and a
 * redirect is an answer, never followed (docs/worker.md, docs/security.md "Outbound HTTP").
 */
describe('http.request allow-list at a real receiver (real worker process)', () => {
  let cluster: TestCluster;
  let oracle: Oracle;
  let unspecified: string;

  beforeAll(async () => {
    oracle = await new Oracle().start();
    oracle.answer = (call) =>
      call.path.endsWith('/redirect') ? { status: 302, headers: { location: `${oracle.url}/admin` } } : { status: 200 };
    cluster = await testCluster('outbound', [{ name: 'hooks', maxAttempts: 1 }]);
    // A connect to 0.0.0.0 reaches this host (on Linux, the oracle on 127.0.0.1): named or not, the
    // address check refuses it.
    unspecified = oracle.url.replace('127.0.0.1', '0.0.0.0');
    await cluster.startWorker('worker-outbound', { DROVER_HTTP_ALLOW: `${oracle.url}/allowed,${unspecified}/` });
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
    await oracle?.stop();
  }, 30_000);

  it('calls /allowed/…, parks /allowed-admin and encoded escapes at once, and never follows a redirect', async () => {
    const refused: Record<string, string> = {
      'o-sibling': '/allowed-admin',
      'o-slash': '/allowed%2F..%2Fadmin',
      'o-deep': '/allowed/x%2F..%2F..%2Fadmin',
      'o-semicolon': '/allowed/..;/admin',
      'o-double': '/allowed/%252e%252e/admin',
    };
    await cluster.runs.enqueueMany([
      httpRun('o-ok', 'hooks', `${oracle.url}/allowed/ok`),
      httpRun('o-redirect', 'hooks', `${oracle.url}/allowed/redirect`),
      httpRun('o-metadata', 'hooks', 'http://169.254.169.254/latest/meta-data/'),
      httpRun('o-unspecified', 'hooks', `${unspecified}/named`),
      ...Object.entries(refused).map(([id, path]) => httpRun(id, 'hooks', `${oracle.url}${path}`)),
    ]);
    const ids = ['o-ok', 'o-redirect', 'o-metadata', 'o-unspecified', ...Object.keys(refused)];
    const runs = Object.fromEntries(
      await Promise.all(ids.map(async (id) => [id, (await cluster.runs.waitForTerminal(id, 20_000)).run] as const)),
    );

    expect(runs['o-ok']).toMatchObject({ status: 'succeeded' });
    expect(runs['o-redirect']).toMatchObject({ status: 'parked', reason: 'attempts-exhausted', attempt: 1 });
    expect(runs['o-redirect']!.error!.message).toMatch(
      new RegExp(`^POST ${oracle.url}/allowed/redirect answered 302 \\(redirects are not followed\\)`),
    );
    expect(runs['o-metadata']).toMatchObject({ status: 'parked', reason: 'permanent-error', attempt: 1 });
    expect(runs['o-metadata']!.error!.message).toBe(
      `http://169.254.169.254/latest/meta-data/ is not allowed: DROVER_HTTP_ALLOW=${oracle.url}/allowed,${unspecified}/`,
    );
    expect(runs['o-unspecified']).toMatchObject({ status: 'parked', reason: 'permanent-error', attempt: 1 });
    expect(runs['o-unspecified']!.error!.message).toBe(
      `${unspecified}/named is not allowed: 0.0.0.0 is "this network" (0.0.0.0/8), which is never called`,
    );
    for (const [id, path] of Object.entries(refused)) {
      expect(runs[id]).toMatchObject({ status: 'parked', reason: 'permanent-error', attempt: 1 });
      expect(runs[id]!.error!.message.startsWith(`${oracle.url}${path} is not allowed: `)).toBe(true);
    }
    expect(runs['o-sibling']!.error!.message).toBe(
      `${oracle.url}/allowed-admin is not allowed: DROVER_HTTP_ALLOW=${oracle.url}/allowed,${unspecified}/`,
    );
    expect(runs['o-deep']!.error!.message).toBe(
      `${oracle.url}/allowed/x%2F..%2F..%2Fadmin is not allowed: its path could be read as another path ` +
        '(segment "x%2F..%2F..%2Fadmin" encodes a "/" or "\\")',
    );
    // What reached the receiver: the allowed call and the redirect's first request, nothing else.
    expect(oracle.calls.map((c) => c.path).sort()).toEqual(['/allowed/ok', '/allowed/redirect']);
  }, 60_000);
});
