import { once } from 'node:events';
import pino from 'pino';
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

  function elector(id: string, leaseMs = 1000, metrics?: DroverMetrics, log?: pino.Logger): LeaderElector {
    const e = new LeaderElector(conns.open('command', id), keys, { instanceId: id, leaseMs }, log, metrics);
    electors.push(e);
    return e;
  }

  /** A pino logger whose lines the test can read. */
  function capturedLog(): { log: pino.Logger; lines: { level: number; msg: string; [k: string]: unknown }[] } {
    const lines: { level: number; msg: string }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    return { log, lines };
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

  it('two processes with the same instance id: exactly one leads, and the duplicated id is logged as an error', async () => {
    const metrics = [new DroverMetrics({ defaultMetrics: false }), new DroverMetrics({ defaultMetrics: false })];
    const logs = [capturedLog(), capturedLog()];
    const both = [elector('same', 600, metrics[0], logs[0]!.log), elector('same', 600, metrics[1], logs[1]!.log)];
    let elections = 0;
    const duplicates = new Set<LeaderElector>();
    const settled = new Promise<void>((resolve) => {
      for (const e of both) {
        e.on('elected', () => ++elections > 1 && resolve());
        e.on('duplicate', () => duplicates.add(e).size === 2 && resolve());
      }
    });
    both.forEach((e) => e.start());
    // Both have seen each other (two lease ticks each at least), or a second one was elected.
    await settled;
    expect(elections).toBe(1);
    expect(both.filter((e) => e.isLeader)).toHaveLength(1);
    const samples = await Promise.all(metrics.map((m) => m.registry.getSingleMetricAsString('drover_leader')));
    expect(samples.map((t) => /drover_leader\{instance="same"\} (\d)/.exec(t)?.[1]).sort()).toEqual(['0', '1']);
    for (const { lines } of logs) {
      const errors = lines.filter((l) => l.level === 50);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.msg).toMatch(/^duplicate DROVER_INSTANCE_ID "same": another running scheduler process uses it/);
    }
    // The follower's nonce is what the leader found, and the other way round.
    expect(logs[0]!.lines.find((l) => l.level === 50)!.otherNonce).toBe(both[1]!.nonce);
    expect(both[0]!.nonce).not.toBe(both[1]!.nonce);
  });

  it('a restart under the same instance id waits for the lease its predecessor did not release, without calling it a duplicate', async () => {
    const a = elector('node-1', 600);
    a.start();
    const la = await a.waitForLeadership();
    // The first process dies without releasing the lease: no tick of it runs again.
    const dead = a as unknown as { stopped: boolean; timer?: NodeJS.Timeout };
    dead.stopped = true;
    clearTimeout(dead.timer);
    const { log, lines } = capturedLog();
    const b = elector('node-1', 600, undefined, log);
    const duplicate = jest.fn();
    b.on('duplicate', duplicate);
    b.start();
    const lb = await b.waitForLeadership();
    // A new leadership (the old lease expired first), never a renewal of the old start's lease.
    expect(lb.epoch).toBe(la.epoch + 1);
    expect(lb.token).not.toBe(la.token);
    expect(duplicate).not.toHaveBeenCalled();
    expect(lines.filter((l) => l.level === 50)).toEqual([]);
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toContainEqual(
      expect.stringMatching(/^the leader lease is held under DROVER_INSTANCE_ID "node-1" by another process start/),
    );
  });

  it('fenced writes refuse a stale token and accept the current one', async () => {
    const a = elector('a');
    a.start();
    const la: Leadership = await a.waitForLeadership();
    const redis = withDroverScripts(conns.command);
    const target = keys.schedulerDefs();
    expect(await redis.fencedHset(a.leaderKey, target, la.token, 'f', 'v1')).toBe(1);
    expect(await redis.fencedHset(a.leaderKey, target, `a|${a.nonce}|${la.epoch - 1}`, 'f', 'stale')).toBe(
      ScriptCode.StaleToken,
    );
    // Another process start of the same instance id with the same epoch is not the leader either.
    expect(await redis.fencedHset(a.leaderKey, target, `a|other|${la.epoch}`, 'f', 'other')).toBe(
      ScriptCode.StaleToken,
    );
    expect(await conns.command.hget(target, 'f')).toBe('v1');
  });
});
