import { httpRun, testCluster, type TestCluster } from './support/cluster';
import { Oracle } from './support/oracle';

/**
 * What a receiver of `http.request` sees: Drover's four headers exactly once, with Drover's values,
 * whatever the payload says — and a payload whose headers cannot be sent safely never reaches it.
 */
describe('http.request headers at a real receiver (real worker process)', () => {
  let cluster: TestCluster;
  let oracle: Oracle;

  beforeAll(async () => {
    oracle = await new Oracle().start();
    cluster = await testCluster('headers', [{ name: 'hooks', maxAttempts: 3 }]);
    await cluster.startWorker('worker-headers');
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
    await oracle?.stop();
  }, 30_000);

  it("a payload header named like one of Drover's, in any case, is replaced by Drover's value, not merged", async () => {
    const slot = Date.UTC(2026, 0, 1, 2, 0, 0);
    await cluster.runs.enqueue(
      httpRun('r-hook-1767232800000', 'hooks', `${oracle.url}/forged`, {
        routine: 'hook',
        source: 'schedule',
        scheduledFor: slot,
        payload: {
          url: `${oracle.url}/forged`,
          method: 'POST',
          headers: {
            'x-drover-run-id': 'forged',
            'X-DROVER-ROUTINE': 'forged',
            'X-Drover-Scheduled-For': '1999-01-01T00:00:00.000Z',
            'x-drover-attempt': '7',
            'X-Tenant': 'acme',
          },
        },
      }),
    );
    const { run } = await cluster.runs.waitForTerminal('r-hook-1767232800000', 20_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 1 });
    const calls = oracle.calls.filter((c) => c.path === '/forged');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers).toMatchObject({
      'x-drover-run-id': ['r-hook-1767232800000'],
      'x-drover-routine': ['hook'],
      'x-drover-scheduled-for': ['2026-01-01T02:00:00.000Z'],
      'x-drover-attempt': ['1'],
      'x-tenant': ['acme'],
    });
  }, 60_000);

  it('payload headers that would reframe the request or inject a header park the run at once, naming the header', async () => {
    const bad: Record<string, Record<string, string>> = {
      'h-length': { 'Content-Length': '1' },
      'h-host': { host: 'admin.internal' },
      'h-crlf': { 'X-Note': 'a\r\nX-Injected: 1' },
      'h-twice': { 'X-Tenant': 'a', 'x-tenant': 'b' },
    };
    await cluster.runs.enqueueMany(
      Object.entries(bad).map(([id, headers]) =>
        httpRun(id, 'hooks', `${oracle.url}/${id}`, {
          payload: { url: `${oracle.url}/${id}`, method: 'POST', headers },
        }),
      ),
    );
    const runs = await Promise.all(
      Object.keys(bad).map(async (id) => (await cluster.runs.waitForTerminal(id, 20_000)).run),
    );
    for (const run of runs) {
      expect(run).toMatchObject({ status: 'parked', reason: 'permanent-error', attempt: 1 });
      expect(run!.errors).toHaveLength(1);
      expect(run!.errors![0]).toMatchObject({ kind: 'invalid-payload' });
    }
    expect(runs.map((r) => r!.error!.message)).toEqual([
      'invalid payload: headers.Content-Length: is set by the HTTP client from the URL and body; a payload may not set it',
      'invalid payload: headers.host: is set by the HTTP client from the URL and body; a payload may not set it',
      'invalid payload: headers.X-Note: value holds CR (U+000D) at index 1, which a header value may not carry',
      'invalid payload: headers.x-tenant: is given twice (also as "X-Tenant"); header names are case-insensitive',
    ]);
    expect(oracle.calls.filter((c) => c.path.startsWith('/h-'))).toEqual([]);
  }, 60_000);
});
