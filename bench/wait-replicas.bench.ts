/**
 * What DROVER_REDIS_WAIT_REPLICAS=1 costs, against raw BullMQ in the same run: this bench starts
 * its own replica of the REDIS_URL server (loopback, in sync before the first round) and times, in
 * this process with N calls in flight, raw `Queue.add`, `DroverClient.enqueue` without and with
 * `waitReplicas: 1`, and slot claims (`SlotClaims.claim`, what every fire and arm makes) without
 * and with a replica to wait for. Rounds alternate the order after a warm-up; medians are printed
 * as ratios to raw `add`, with the load average. Env: REDIS_URL, BENCH_JOBS (5000), BENCH_ROUNDS
 * (5), BENCH_IN_FLIGHT (200).
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { DroverClient, DroverModule } from '@drover/client';
import { startRedisServer, testStores, uniquePrefix, waitFor } from '@drover/testing';
import { withInFlight } from './deployed/protocol';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 200);
const SIDES = ['raw add', 'enqueue', 'enqueue, WAIT 1', 'claim', 'claim, WAIT 1'] as const;
type Side = (typeof SIDES)[number];

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (x: number) => Math.round(x).toLocaleString('en-US').replace(/,/g, ' ');

async function timed(call: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await withInFlight(N, IN_FLIGHT, call);
  return N / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function producer(
  prefix: string,
  waitReplicas: number,
): Promise<{ client: DroverClient; close(): Promise<void> }> {
  @Module({
    imports: [DroverModule.forRoot({ redis: REDIS_URL, prefix, defaultQueue: 'q', name: 'bench', waitReplicas })],
  })
  class ProducerModule {}
  const app = await NestFactory.createApplicationContext(ProducerModule, { logger: false });
  return { client: app.get(DroverClient), close: () => app.close() };
}

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  const master = new URL(REDIS_URL);
  const replica = await startRedisServer({ replicaOf: { host: master.hostname, port: Number(master.port) } });
  const probe = new Redis(replica.url);
  await waitFor(
    'the replica to be in sync',
    async () => /master_link_status:up/.test(await probe.info('replication')),
    {
      timeoutMs: 20_000,
    },
  );
  const prefix = uniquePrefix('bench-wait');
  const redis = { kind: 'url' as const, url: REDIS_URL, tls: false };
  const plain = testStores('bench-wait', { redis, prefix });
  const waiting = testStores('bench-wait-1', { redis, prefix, wait: { replicas: 1, timeoutMs: 1_000 } });
  await plain.registry.put([{ name: 'q' }]);
  const clients = { 0: await producer(prefix, 0), 1: await producer(prefix, 1) };
  const raw = new Queue(plain.keys.bullQueueName('q'), {
    connection: new Redis(REDIS_URL),
    prefix: plain.keys.bullPrefix,
  });

  let routineNo = 0;
  const claims = async (stores: typeof plain) => {
    const routine = `r${routineNo++}`;
    const base = Date.now();
    await stores.connections.command.hset(stores.keys.routineState(routine), { since: base - 60_000, v: 1 });
    return timed((i) =>
      stores.claims.claim({
        routine,
        slot: base + (i + 1) * 1000,
        decision: { kind: 'fire', source: 'schedule', cancel: [], at: base },
        now: base,
      }),
    );
  };
  const run: Record<Side, () => Promise<number>> = {
    'raw add': () => timed(() => raw.add('noop', { payload: null })),
    enqueue: () => timed(() => clients[0].client.enqueue('noop', {})),
    'enqueue, WAIT 1': () => timed(() => clients[1].client.enqueue('noop', {})),
    claim: () => claims(plain),
    'claim, WAIT 1': () => claims(waiting),
  };
  const results = Object.fromEntries(SIDES.map((s) => [s, [] as number[]])) as Record<Side, number[]>;
  for (const side of SIDES) await run[side]();
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order) results[side].push(await run[side]());
    await raw.obliterate({ force: true });
    console.log(`round ${i + 1}: ${SIDES.map((s) => `${s} ${fmt(results[s].at(-1)!)}/s`).join(', ')}`);
  }
  console.log(
    `\n${N} calls per side and round, ${IN_FLIGHT} in flight, ${ROUNDS} rounds (medians), one replica on loopback`,
  );
  console.log(`${'measure'.padEnd(20)} ${'calls/s'.padStart(9)}   ratio to raw add   per-round ratios`);
  for (const side of SIDES) {
    const perRound = results[side].map((x, i) => (x / results['raw add'][i]!).toFixed(2)).join(' ');
    const ratio = (median(results[side]) / median(results['raw add'])).toFixed(2);
    console.log(`${side.padEnd(20)} ${fmt(median(results[side])).padStart(9)}   ${ratio.padStart(16)}   ${perRound}`);
  }
  console.log(`load average at end: ${load()}`);
  await raw.obliterate({ force: true });
  const leftovers = await plain.connections.command.keys(`${prefix}:*`);
  if (leftovers.length) await plain.connections.command.unlink(...leftovers);
  await Promise.all([clients[0].close(), clients[1].close(), plain.close(), waiting.close(), raw.close()]);
  probe.disconnect();
  await replica.stop();
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
