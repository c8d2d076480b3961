import { once } from 'node:events';
import { DroverMetrics } from '@drover/metrics';
import { DroverKeys, RedisConnections, ScriptCode, withDroverScripts } from '@drover/redis';
import { testRedisUrl, uniquePrefix } from '@drover/testing';
import { LeaderElector, type Leadership } from './leader-elector';

describe('LeaderElector on a real Redis', () => {
  let conns: RedisConnections;
  let keys: DroverKeys;
  const electors: LeaderElector[] = [];

  beforeEach(() => {
    conns = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'leader-test');
    keys = new DroverKeys(uniquePrefix('leader'), false);
  });

  afterEach(async () => {
    await Promise.all(electors.splice(0).map((e) => e.stop()));
    await conns.closeAll();
  });

  function elector(id: string, leaseMs = 1000, metrics?: DroverMetrics): LeaderElector {
    const e = new LeaderElector(conns.open('command', id), keys, { instanceId: id, leaseMs }, undefined, metrics);
    electors.push(e);
    return e;
  }

  it('elects exactly one of several candidates and exports drover_leader', async () => {
    const metrics = [new DroverMetrics({ defaultMetrics: false }), new DroverMetrics({ defaultMetrics: false })];
    const [a, b] = [elector('a', 1000, metrics[0]), elector('b', 1000, metrics[1])];
    a.start();
    b.start();
    const first = await Promise.race([a.waitForLeadership(), b.waitForLeadership()]);
    expect(first.epoch).toBe(1);
    expect([a.isLeader, b.isLeader].filter(Boolean)).toHaveLength(1);
    const leaderMetrics = a.isLeader ? metrics[0]! : metrics[1]!;
    const followerMetrics = a.isLeader ? metrics[1]! : metrics[0]!;
    expect(await leaderMetrics.registry.getSingleMetricAsString('drover_leader')).toMatch(
      /drover_leader\{instance="[ab]"\} 1/,
    );
    expect(await followerMetrics.registry.getSingleMetricAsString('drover_leader')).toMatch(
      /drover_leader\{instance="[ab]"\} 0/,
    );
  });

  it('hands over at once when the leader stops, with a higher epoch', async () => {
    const a = elector('a');
    a.start();
    const la = await a.waitForLeadership();
    const b = elector('b', 1000);
    b.start();
    const elected = b.waitForLeadership();
    await a.stop();
    const lb = await elected;
    expect(lb.epoch).toBe(la.epoch + 1);
    expect(a.isLeader).toBe(false);
  });

  it('takes over after the lease expires when the leader vanishes without releasing', async () => {
    const a = elector('a', 600);
    a.start();
    const la = await a.waitForLeadership();
    // Simulate a dead process: stop its timers without releasing the lease.
    (a as unknown as { stopped: boolean }).stopped = true;
    const b = elector('b', 600);
    const startedAt = Date.now();
    b.start();
    const lb = await b.waitForLeadership();
    expect(lb.epoch).toBeGreaterThan(la.epoch);
    expect(Date.now() - startedAt).toBeLessThan(2 * 600 + 500);
  });

  it('steps down when another instance holds the lease (renew refused)', async () => {
    const a = elector('a', 600);
    a.start();
    const la = await a.waitForLeadership();
    const demoted = once(a, 'demoted');
    // Someone else took the lease (e.g. after a partition healed).
    await conns.command.set(a.leaderKey, `intruder|${la.epoch + 1}`, 'PX', 5000);
    const [reason] = await demoted;
    expect(reason).toMatch(/lost/);
    expect(a.isLeader).toBe(false);
  });

  it('fenced writes refuse a stale token and accept the current one', async () => {
    const a = elector('a');
    a.start();
    const la: Leadership = await a.waitForLeadership();
    const redis = withDroverScripts(conns.command);
    const target = keys.core('fenced-test');
    expect(await redis.fencedHset(a.leaderKey, target, la.token, 'f', 'v1')).toBe(1);
    expect(await redis.fencedHset(a.leaderKey, target, `a|${la.epoch - 1}`, 'f', 'stale')).toBe(ScriptCode.StaleToken);
    expect(await conns.command.hget(target, 'f')).toBe('v1');
  });
});
