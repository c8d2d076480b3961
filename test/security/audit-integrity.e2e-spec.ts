import { ApiCluster, expectProblem } from '../api/support/api-cluster';
import { droverAs } from '../cli/support/drover-cli';

/** What the palette writes (colours, bold, dim), and nothing else, may reach a terminal. */
// eslint-disable-next-line no-control-regex -- the point is to find control characters
const FOREIGN_CONTROL = /(?!\u001b\[(?:1|2|22|31|32|33|36|39)m)[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/**
 * Audit integrity against the built api: a flood of anonymous writes is throttled per address
 * and never pushes an admin's action out of the audit log, and path text an attacker chose
 * reaches `drover audit` (the built binary) escaped, whether or not the server escaped it.
 */
describe('audit integrity (real api, real drover binary)', () => {
  let api: ApiCluster;

  beforeAll(async () => {
    api = await ApiCluster.start('audit-integrity', {
      policy: { queues: [{ name: 'default', concurrency: 1 }] },
      worker: false,
      refusalLimitPerMinute: 50,
    });
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  it("throttles a flood of anonymous writes per address with 429 + Retry-After; the admin's pause stays listed", async () => {
    expect((await api.call('POST', '/queues/default/pause', { as: 'admin' })).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 600; i += 50) {
      const batch = Array.from({ length: 50 }, (_, j) =>
        api.call('POST', '/queues/default/resume', { as: (i + j) % 2 ? 'none' : { token: 'guess' } }),
      );
      statuses.push(...(await Promise.all(batch)).map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(550);
    const throttled = expectProblem(await api.call('DELETE', '/routines/x', { as: 'none' }), 429);
    expect(throttled.detail).toMatch(/too many unauthenticated requests/);
    const last = await api.call('POST', '/queues/default/resume', { as: 'none' });
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);

    // A valid token from the same address is untouched by the refusals.
    const audit = await api.call('GET', '/audit?page_size=1000', { as: 'admin' });
    expect(audit.status).toBe(200);
    expect(audit.body.items).toEqual([
      expect.objectContaining({ token: 'admin-token', action: 'pauseQueue', target: 'name=default', status: 200 }),
    ]);
    const refused = await api.call('GET', '/audit?log=refused&page_size=1000', { as: 'admin' });
    expect(refused.body.items).toHaveLength(50);
    expect(refused.body.items[0]).toMatchObject({ token: 'anonymous', action: 'resumeQueue', status: 401 });
    expectProblem(await api.call('GET', '/audit?log=everything', { as: 'admin' }), 400);

    const cli = droverAs(api, 'admin');
    const listed = await cli(['audit', '--refused', '--limit', '5', '-o', 'json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(5);
  }, 60_000);

  it('drover audit prints path text with %0A and %1B escaped, one line per entry', async () => {
    const forged =
      '/queues/x%0A2026-01-01T00:00:00Z%20admin-token%20(admin)%20deleteRoutine%1B%5B2J%1B]0;pwned%07/pause';
    expect((await api.call('POST', forged, { as: 'operator' })).status).toBe(400);
    // An entry as an older api (or anything else with write access to the stream) may have left it: raw.
    await api.cluster.connections.command.xadd(
      api.cluster.keys.audit(),
      '*',
      ...['at', new Date().toISOString(), 'token', 'old\u001b[8m', 'role', 'operator', 'action', 'pauseQueue'],
      ...['target', 'name=y\n2026-01-01T00:00:00Z  forged\u001b[1A\u001b[2K', 'status', '200', 'ip', '127.0.0.1'],
    );
    const cli = droverAs(api, 'admin');
    for (const env of [{}, { FORCE_COLOR: '1' }] as Record<string, string>[]) {
      const res = await cli(['audit', '--limit', '3'], { env });
      expect(res.code).toBe(0);
      const lines = res.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(4); // the header and three entries: nothing forged a line
      expect(res.stdout).not.toMatch(FOREIGN_CONTROL);
      expect(lines[1]).toContain('name=y\\n2026-01-01T00:00:00Z  forged\\x1b[1A\\x1b[2K');
      expect(lines[1]).toContain('old\\x1b[8m (operator)');
      // The server stored it escaped (backslashes doubled there, `\x1b` shown as typed).
      expect(lines[2]).toContain(
        'name=x\\n2026-01-01T00:00:00Z admin-token (admin) deleteRoutine\\x1b[2J\\x1b]0;pwned\\x07',
      );
    }
    // The JSON output carries the stored text as it is.
    const json = JSON.parse((await cli(['audit', '--limit', '1', '-o', 'json'])).stdout);
    expect(json[0].target).toBe('name=y\n2026-01-01T00:00:00Z  forged\u001b[1A\u001b[2K');
  }, 60_000);
});
