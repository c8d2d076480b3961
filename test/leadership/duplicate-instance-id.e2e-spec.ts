import { startApp, testRedisUrl, uniquePrefix, waitFor, type AppProcess } from '@drover/testing';

const TTL_MS = 1000;
const ID = 'scheduler-twin';

/** `drover_leader{instance="<ID>"}` on a process's /metrics (undefined: no answer). */
async function leaderGauge(p: AppProcess): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${p.baseUrl}/metrics`)).text();
    const m = new RegExp(`^drover_leader\\{instance="${ID}"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Two real scheduler processes started with the same DROVER_INSTANCE_ID (a copy-pasted manifest):
 * the lease holder is the id plus a per-start nonce, so they are two candidates and one leads.
 */
describe('two scheduler processes with the same DROVER_INSTANCE_ID', () => {
  const processes: AppProcess[] = [];

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
  });

  it('exactly one reports drover_leader 1 at every sample, and both log the duplicated id as an error', async () => {
    const env = {
      REDIS_URL: testRedisUrl(),
      DROVER_PREFIX: uniquePrefix('twin'),
      DROVER_INSTANCE_ID: ID,
      DROVER_LEADER_TTL_MS: String(TTL_MS),
      LOG_LEVEL: 'info',
    };
    const [a, b] = await Promise.all([startApp('scheduler', { env }), startApp('scheduler', { env })]);
    processes.push(a!, b!);

    await waitFor('a leader', async () => (await leaderGauge(a!)) === 1 || (await leaderGauge(b!)) === 1, {
      timeoutMs: 10 * TTL_MS,
    });
    // Sample both gauges for four leases: a dozen lease ticks of each process.
    const samples: [number | undefined, number | undefined][] = [];
    for (const end = Date.now() + 4 * TTL_MS; Date.now() < end;) {
      samples.push(await Promise.all([leaderGauge(a!), leaderGauge(b!)]));
      await new Promise((r) => setTimeout(r, 50));
    }

    expect(samples.length).toBeGreaterThan(3);
    expect(samples.filter(([x, y]) => x === 1 && y === 1)).toEqual([]);
    const [last] = samples.slice(-1);
    expect([...last!].sort()).toEqual([0, 1]);
    // One election in all, never a second holder of the same lease.
    const elected = [a!, b!].map((p) => p.output().match(/became leader/g)?.length ?? 0);
    expect(elected.reduce((x, y) => x + y)).toBe(1);
    expect(elected[last![0] === 1 ? 0 : 1]).toBe(1);
    // Each found the other's nonce under the id it was given.
    const duplicate = new RegExp(`"level":50,.*duplicate DROVER_INSTANCE_ID \\\\"${ID}\\\\"`);
    await Promise.all([a!.waitForLog(duplicate, 5_000), b!.waitForLog(duplicate, 5_000)]);
  }, 60_000);
});
