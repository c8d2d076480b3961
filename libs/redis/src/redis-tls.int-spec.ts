import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadAppConfig } from '@drover/config';
import {
  makeTestCerts,
  startRedisCluster,
  startRedisServer,
  startSentinelTopology,
  uniquePrefix,
  waitFor,
  type RedisClusterHandle,
  type RedisServerHandle,
  type SentinelTopology,
  type TestCerts,
} from '@drover/testing';
import { RedisConnections, type RedisClient } from './redis-connections';

/** Connections as an app opens them: from its environment, through libs/config. */
function connectionsFor(env: Record<string, string>): RedisConnections {
  return new RedisConnections(loadAppConfig('test', {}, env).env.redis, 'tls-test');
}

/** The first error a connection reports (ioredis keeps retrying; the reason is what matters). */
function firstError(client: RedisClient): Promise<Error> {
  return new Promise((resolve) => client.once('error', resolve));
}

async function roundTrip(conns: RedisConnections): Promise<void> {
  const key = `${uniquePrefix('tls')}:k`;
  await conns.command.set(key, 'v');
  expect(await conns.open('blocking', 'bull').get(key)).toBe('v');
  await conns.ping(2_000);
}

describe('Redis over TLS with a private CA', () => {
  let certs: TestCerts;
  let server: RedisServerHandle;
  let files: Record<string, string>;
  let url: string;

  beforeAll(async () => {
    certs = makeTestCerts();
    const password = randomBytes(8).toString('hex');
    // --port 0: the server has no plain port at all, and it requires a client certificate.
    server = await startRedisServer({ tls: { certs, authClients: 'yes' }, password });
    url = `rediss://:${password}@127.0.0.1:${server.port}/0`;
    files = {
      REDIS_TLS_CA_FILE: certs.caFile,
      REDIS_TLS_CERT_FILE: certs.clientCertFile,
      REDIS_TLS_KEY_FILE: certs.clientKeyFile,
    };
  });

  afterAll(async () => {
    await server?.stop();
    certs?.remove();
  });

  it('connects over rediss:// with the CA and client certificate named by REDIS_TLS_*_FILE', async () => {
    const conns = connectionsFor({ REDIS_URL: url, ...files });
    try {
      await roundTrip(conns);
    } finally {
      await conns.closeAll();
    }
  });

  it('checks the certificate against REDIS_TLS_SERVERNAME instead of the host dialled when set', async () => {
    const named = connectionsFor({ REDIS_URL: url, ...files, REDIS_TLS_SERVERNAME: 'localhost' });
    const wrong = connectionsFor({ REDIS_URL: url, ...files, REDIS_TLS_SERVERNAME: 'elsewhere.invalid' });
    try {
      await roundTrip(named);
      expect((await firstError(wrong.command)).message).toMatch(/does not match certificate's altnames/);
    } finally {
      await named.closeAll();
      await wrong.closeAll();
    }
  });

  it('refuses a server certificate that does not chain to a trusted CA when no CA is named', async () => {
    const conns = connectionsFor({
      REDIS_URL: url,
      REDIS_TLS_CERT_FILE: certs.clientCertFile,
      REDIS_TLS_KEY_FILE: certs.clientKeyFile,
    });
    try {
      expect((await firstError(conns.command)).message).toMatch(/self-signed certificate|unable to get local issuer/);
      await expect(conns.ping(300)).rejects.toThrow();
    } finally {
      await conns.closeAll();
    }
  });

  it('is refused by a server that requires a client certificate when none is named', async () => {
    const conns = connectionsFor({ REDIS_URL: url, REDIS_TLS_CA_FILE: certs.caFile });
    try {
      await expect(conns.ping(1_000)).rejects.toThrow();
      expect(conns.command.status).not.toBe('ready');
    } finally {
      await conns.closeAll();
    }
  });

  it('cannot reach the server over plain TCP: TLS is really in use', async () => {
    const plain = new Redis(`redis://127.0.0.1:${server.port}`, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    plain.on('error', () => undefined);
    try {
      await expect(plain.ping()).rejects.toThrow();
    } finally {
      plain.disconnect();
    }
  });
});

describe('Redis Sentinel over TLS', () => {
  let certs: TestCerts;
  let topology: SentinelTopology;
  let env: Record<string, string>;

  beforeAll(async () => {
    certs = makeTestCerts();
    const password = randomBytes(8).toString('hex');
    topology = await startSentinelTopology({ tls: { certs }, password, replicas: 1, sentinels: 3 });
    env = {
      REDIS_SENTINELS: topology.sentinelList,
      REDIS_SENTINEL_NAME: topology.masterName,
      // Only credentials, TLS and the db come from the URL; Sentinel names the host.
      REDIS_URL: `rediss://:${password}@localhost/0`,
      REDIS_TLS_CA_FILE: certs.caFile,
      REDIS_TLS_CERT_FILE: certs.clientCertFile,
      REDIS_TLS_KEY_FILE: certs.clientKeyFile,
    };
  }, 60_000);

  afterAll(async () => {
    await topology?.stop();
    certs?.remove();
  });

  it('finds the master through TLS-only Sentinels and talks to it over TLS', async () => {
    const conns = connectionsFor(env);
    try {
      await roundTrip(conns);
      const info = await conns.command.info('server');
      expect(info).toContain(`tcp_port:${topology.nodes[0]!.port}`);
    } finally {
      await conns.closeAll();
    }
  });

  it('follows a failover to the promoted replica, still over TLS', async () => {
    const conns = connectionsFor(env);
    try {
      await roundTrip(conns);
      const old = await topology.masterPort();
      await topology.nodes.find((n) => n.port === old)!.kill('SIGKILL');
      const promoted = await topology.waitForNewMaster(old);
      const key = `${uniquePrefix('tls')}:after`;
      // Writes fail while no master answers; the connection reconnects through the Sentinels.
      await waitFor('a write to the promoted master', async () => (await conns.command.set(key, 'v')) === 'OK', {
        timeoutMs: 15_000,
        intervalMs: 100,
      });
      expect(await conns.command.info('server')).toContain(`tcp_port:${promoted}`);
    } finally {
      await conns.closeAll();
    }
  }, 30_000);
});

describe('Redis Cluster over TLS', () => {
  let certs: TestCerts;
  let cluster: RedisClusterHandle;
  let password: string;

  beforeAll(async () => {
    certs = makeTestCerts();
    password = randomBytes(8).toString('hex');
    cluster = await startRedisCluster({ masters: 3, tls: { certs }, password });
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
    certs?.remove();
  });

  it('checks each node against the host it is dialled at, not the URL host, and reaches every node over TLS', async () => {
    const [first, ...others] = cluster.nodes;
    const conns = connectionsFor({
      // A seed by name (its certificate names localhost); the others as CLUSTER SLOTS announces them.
      REDIS_CLUSTER_NODES: [`localhost:${first!.port}`, ...others.map((n) => `127.0.0.1:${n.port}`)].join(','),
      // With Cluster only credentials and TLS come from the URL: its host names no node.
      REDIS_URL: `rediss://:${password}@redis.invalid`,
      REDIS_TLS_CA_FILE: certs.caFile,
      REDIS_TLS_CERT_FILE: certs.clientCertFile,
      REDIS_TLS_KEY_FILE: certs.clientKeyFile,
    });
    try {
      expect(conns.isCluster).toBe(true);
      const prefix = uniquePrefix('tls');
      // Keys under 30 hash tags land on every node (each owns a third of the slots).
      await Promise.all(Array.from({ length: 30 }, (_, i) => conns.command.set(`${prefix}:{${i}}`, 'v')));
      for (const node of cluster.nodes) {
        const direct = new Redis({ ...node.clientOptions, maxRetriesPerRequest: 0 });
        try {
          expect(await direct.dbsize()).toBeGreaterThan(0);
        } finally {
          direct.disconnect();
        }
      }
      expect(await conns.open('blocking', 'bull').get(`${prefix}:{7}`)).toBe('v');
    } finally {
      await conns.closeAll();
    }
  });
});
