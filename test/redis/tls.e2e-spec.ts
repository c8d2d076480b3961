import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  makeTestCerts,
  startApp,
  startHttpOracle,
  startRedisServer,
  startSentinelTopology,
  type AppProcess,
  type HttpOracle,
  type RedisServerHandle,
  type SentinelTopology,
  type TestCerts,
} from '@drover/testing';
import { TestCluster } from '../scheduler/cluster';
import { allRoutinesDeliveredSince, tickPolicy } from '../faults/support/fault-oracle';

/** The apps as users run them, on Redis that speaks TLS only, with a private CA and client certificates. */
describe('the apps on Redis over TLS', () => {
  let certs: TestCerts;
  let oracle: HttpOracle;
  let tlsFiles: Record<string, string>;
  const password = randomBytes(8).toString('hex');

  beforeAll(async () => {
    certs = makeTestCerts();
    oracle = await startHttpOracle();
    tlsFiles = {
      REDIS_TLS_CA_FILE: certs.caFile,
      REDIS_TLS_CERT_FILE: certs.clientCertFile,
      REDIS_TLS_KEY_FILE: certs.clientKeyFile,
    };
  });

  afterAll(async () => {
    await oracle?.close();
    certs?.remove();
  });

  describe('standalone redis-server', () => {
    let redis: RedisServerHandle;
    let cluster: TestCluster;

    beforeAll(async () => {
      redis = await startRedisServer({ tls: { certs }, password });
      cluster = new TestCluster(tickPolicy(oracle.url), { REDIS_URL: redis.url, ...tlsFiles });
    });

    afterAll(async () => {
      await cluster?.stopAll();
      await redis?.stop();
    });

    it('runs the standalone app over rediss:// and delivers its routines', async () => {
      await cluster.start('standalone', 'standalone-1');
      const from = Date.now() + 1_000;
      await oracle.waitFor('a run of every routine', allRoutinesDeliveredSince(from), 20_000);
    }, 60_000);
  });

  describe('Sentinel', () => {
    let topology: SentinelTopology;
    let cluster: TestCluster;

    beforeAll(async () => {
      topology = await startSentinelTopology({ tls: { certs }, password });
      cluster = new TestCluster(tickPolicy(oracle.url), {
        REDIS_SENTINELS: topology.sentinelList,
        REDIS_SENTINEL_NAME: topology.masterName,
        REDIS_URL: `rediss://:${password}@localhost`,
        ...tlsFiles,
      });
    }, 60_000);

    afterAll(async () => {
      await cluster?.stopAll();
      await topology?.stop();
    });

    it('runs a scheduler and a worker through TLS-only Sentinels and delivers their routines', async () => {
      await Promise.all([cluster.start('scheduler', 'sched-1'), cluster.start('worker', 'worker-1')]);
      const from = Date.now() + 1_000;
      await oracle.waitFor('a run of every routine', allRoutinesDeliveredSince(from), 20_000);
    }, 60_000);
  });

  it('stops at start with exit code 2 naming REDIS_TLS_CA_FILE when the file cannot be read', async () => {
    let app: AppProcess | undefined;
    try {
      app = await startApp('worker', {
        env: { REDIS_URL: 'rediss://127.0.0.1:6380', REDIS_TLS_CA_FILE: join(certs.dir, 'missing.pem') },
        waitReady: false,
      });
      expect(await app.exited).toBe(2);
      expect(app.output()).toMatch(/invalid configuration: REDIS_TLS_CA_FILE: cannot read ".*missing\.pem"/);
    } finally {
      await app?.stop('SIGKILL');
    }
  }, 30_000);
});
