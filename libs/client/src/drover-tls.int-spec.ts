import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { RedisTarget } from '@drover/config';
import {
  makeTestCerts,
  startSentinelTopology,
  testStores,
  uniquePrefix,
  type SentinelTopology,
  type TestCerts,
} from '@drover/testing';
import type { DroverClient } from './drover-client.service';
import { startProducer } from '../test/client-test-harness';

describe('DroverModule on Redis Sentinel over TLS', () => {
  let certs: TestCerts;
  let topology: SentinelTopology;
  let password: string;
  const prefix = uniquePrefix('clienttls');

  beforeAll(async () => {
    certs = makeTestCerts();
    password = randomBytes(8).toString('hex');
    topology = await startSentinelTopology({ tls: { certs }, password });
    // The queue policy the cluster's scheduler would have written, through the same connection code.
    const target: RedisTarget = {
      kind: 'sentinel',
      sentinels: topology.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
      name: topology.masterName,
      url: `rediss://:${password}@localhost`,
      pem: certs.pem,
    };
    const stores = testStores('test-setup', { prefix, redis: target });
    try {
      await stores.registry.put([{ name: 'default' }]);
    } finally {
      await stores.close();
    }
  }, 60_000);

  afterAll(async () => {
    await topology?.stop();
    certs?.remove();
  });

  it('enqueues and reads a run with { sentinels, name, url: rediss://…, tls: { ca, cert, key } }', async () => {
    let producer: { app: INestApplicationContext; client: DroverClient } | undefined;
    try {
      producer = await startProducer({
        redis: {
          sentinels: topology.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
          name: topology.masterName,
          url: `rediss://:${password}@localhost`,
          tls: { ca: certs.pem.ca, cert: Buffer.from(certs.pem.cert), key: certs.pem.key },
        },
        prefix,
        name: 'tls-producer',
      });
      const id = await producer.client.enqueue('noop', {});
      expect(await producer.client.getRun(id)).toMatchObject({ id, status: 'queued', createdBy: 'tls-producer' });
    } finally {
      await producer?.app.close();
    }
  });
});
