import { Cluster, Redis } from 'ioredis';
import { z } from 'zod';
import { defineJob, InvalidOptionsError } from '@drover/core';
import { makeTestCerts, type TestCerts } from '@drover/testing';
import { resolveOptions } from './resolve-options';

const issuesOf = (raw: unknown): string[] => {
  try {
    resolveOptions(raw as never);
  } catch (err) {
    if (err instanceof InvalidOptionsError) return err.issues;
    throw err;
  }
  throw new Error('expected InvalidOptionsError');
};

describe('resolveOptions', () => {
  it('defaults everything for an empty call', () => {
    expect(resolveOptions(undefined)).toEqual({
      redis: { kind: 'url', url: 'redis://127.0.0.1:6379', tls: false },
      prefix: 'drover',
      defaultQueue: 'default',
      name: 'client',
      contracts: new Map(),
      strictJobTypes: false,
      waitReplicas: { replicas: 0, timeoutMs: 1000 },
    });
  });

  it('takes waitReplicas as a count or with a timeout, within the bounds of DROVER_REDIS_WAIT_REPLICAS', () => {
    expect(resolveOptions({ waitReplicas: 1 }).waitReplicas).toEqual({ replicas: 1, timeoutMs: 1000 });
    expect(resolveOptions({ waitReplicas: { replicas: 2, timeoutMs: 50 } }).waitReplicas).toEqual({
      replicas: 2,
      timeoutMs: 50,
    });
    expect(issuesOf({ waitReplicas: -1 })).toEqual([
      'waitReplicas: expected a whole number of replicas 0-16, or { replicas, timeoutMs }, e.g. 1',
    ]);
    expect(issuesOf({ waitReplicas: { replicas: 1, timeoutMs: 0 } })).toEqual([
      'waitReplicas.timeoutMs: expected whole milliseconds 10-60000, e.g. 1000',
    ]);
    expect(issuesOf({ redis: { clusterNodes: [{ host: '127.0.0.1', port: 7000 }] }, waitReplicas: 1 })).toEqual([
      'waitReplicas: not supported with Redis Cluster (WAIT must reach the node that took the write)',
    ]);
  });

  it.each([
    ['redis://u:p@10.0.0.1:6380/2', { kind: 'url', url: 'redis://u:p@10.0.0.1:6380/2', tls: false }],
    [{ url: 'rediss://cache.internal:6380' }, { kind: 'url', url: 'rediss://cache.internal:6380', tls: true }],
    [
      { sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'mymaster', url: 'rediss://u:p@x' },
      { kind: 'sentinel', sentinels: [{ host: '127.0.0.1', port: 26379 }], name: 'mymaster', url: 'rediss://u:p@x' },
    ],
    [
      { clusterNodes: [{ host: '127.0.0.1', port: 7000 }] },
      { kind: 'cluster', nodes: [{ host: '127.0.0.1', port: 7000 }] },
    ],
  ])('maps redis %j to a connection target', (redis, target) => {
    expect(resolveOptions({ redis: redis as never }).redis).toEqual(target);
  });

  describe('redis.tls', () => {
    let certs: TestCerts;
    beforeAll(() => (certs = makeTestCerts()));
    afterAll(() => certs.remove());

    it('takes PEM strings or Buffers and a servername, the same settings as the REDIS_TLS_* variables', () => {
      const tls = { ca: Buffer.from(certs.pem.ca), cert: certs.pem.cert, key: certs.pem.key, servername: 'localhost' };
      expect(resolveOptions({ redis: { url: 'rediss://127.0.0.1:6380', tls } }).redis).toEqual({
        kind: 'url',
        url: 'rediss://127.0.0.1:6380',
        tls: true,
        pem: certs.pem,
        servername: 'localhost',
      });
      const sentinels = [{ host: '127.0.0.1', port: 26379 }];
      expect(
        resolveOptions({ redis: { sentinels, name: 'm', sentinelTls: true, tls: { ca: certs.pem.ca } } }).redis,
      ).toEqual({ kind: 'sentinel', sentinels, name: 'm', sentinelTls: true, pem: { ca: certs.pem.ca } });
    });

    it.each([
      [{ url: 'redis://x', tls: { ca: 'CA' } }, /redis.tls.ca: holds no PEM certificate/],
      [{ url: 'rediss://x', tls: { ca: 42 } }, /redis.tls.ca: expected PEM text \(a string or a Buffer\)/],
      [{ url: 'rediss://x', tls: { rejectUnauthorized: false } }, /redis.tls: unknown option "rejectUnauthorized"/],
      [{ url: 'rediss://x', tls: 'yes' }, /redis.tls: expected \{ ca\?, cert\?, key\?, servername\? \}/],
      [{ url: 'rediss://x', tls: { servername: 'a b' } }, /redis.tls.servername: "a b" is not a host name/],
      [
        { url: 'redis://x', tls: {} },
        /redis.tls: is given but no Redis connection uses TLS \(redis.url is not rediss:\/\/\)/,
      ],
      [
        { sentinels: [{ host: 'a', port: 1 }], name: 'm', tls: {} },
        /redis.tls: is given but no Redis connection uses TLS \(redis.url is not rediss:\/\/ and sentinelTls is not true\)/,
      ],
      [
        { sentinels: [{ host: 'a', port: 1 }], name: 'm', sentinelTls: 'yes' },
        /redis.sentinelTls: expected true or false/,
      ],
      [{ clusterNodes: [{ host: 'a', port: 1 }], url: 'redis://a', tls: {} }, /no Redis connection uses TLS/],
    ])('refuses redis %j', (redis, message) => {
      expect(issuesOf({ redis }).join('\n')).toMatch(message);
    });

    it('wants a client certificate and its key together, and checks each is what it claims', () => {
      expect(issuesOf({ redis: { url: 'rediss://x', tls: { cert: certs.pem.cert } } })).toEqual([
        'redis.tls.key: is required: a client certificate needs its private key',
      ]);
      expect(issuesOf({ redis: { url: 'rediss://x', tls: { cert: certs.pem.key, key: certs.pem.cert } } })).toEqual([
        expect.stringMatching(/^redis.tls.cert: holds no PEM certificate/),
        expect.stringMatching(/^redis.tls.key: holds no usable unencrypted PEM private key/),
      ]);
    });
  });

  it('takes an existing ioredis client (Redis or Cluster) as borrowed', () => {
    const client = new Redis({ lazyConnect: true });
    const cluster = new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true });
    try {
      expect(resolveOptions({ redis: { client } }).redis).toEqual({ kind: 'client', client });
      expect(resolveOptions({ redis: { client: cluster } }).redis).toEqual({ kind: 'client', client: cluster });
    } finally {
      client.disconnect();
      cluster.disconnect();
    }
  });

  it.each([
    ['ftp://x', /redis: scheme "ftp:" is not redis: or rediss:/],
    ['not a url', /redis: "not a url" is not a URL; e.g. "redis:\/\/127.0.0.1:6379"/],
    ['redis://127.0.0.1/abc', /redis: database "abc" is not a number/],
    [{ url: 5 }, /redis.url: expected a redis:\/\/ or rediss:\/\/ URL string/],
    [{ sentinels: [], name: 'm' }, /redis.sentinels: expected a non-empty list of \{ host, port \}/],
    [{ sentinels: [{ host: 'a', port: 1 }] }, /redis.name: expected the Sentinel master name/],
    [{ clusterNodes: [{ host: 'a', port: 70000 }] }, /redis.clusterNodes: expected a non-empty list/],
    [
      { clusterNodes: [{ host: 'a', port: 1 }], sentinels: [], name: 'm' },
      /redis: give only one of sentinels, clusterNodes/,
    ],
    [{ client: {} }, /redis.client: expected an ioredis Redis or Cluster instance/],
    [{ host: 'x' }, /redis: expected a URL, \{ url \}, \{ sentinels, name \}, \{ clusterNodes \} or \{ client \}/],
    [42, /redis: expected a URL/],
  ])('refuses redis %j', (redis, message) => {
    expect(issuesOf({ redis }).join('\n')).toMatch(message);
  });

  it('never repeats a password in a message', () => {
    expect(issuesOf({ redis: 'http://user:hunter2@host' }).join()).not.toContain('hunter2');
    expect(issuesOf({ redis: 'redis://user:hunter2@host/x' }).join()).not.toContain('hunter2');
    expect(issuesOf({ redis: 'redis://user:hunter2@' }).join()).not.toContain('hunter2');
  });

  it('checks prefix, defaultQueue, name, strictJobTypes and unknown options, all at once', () => {
    expect(
      issuesOf({ prefix: 'a b', defaultQueue: 'Q', name: 'x y', strictJobTypes: 'yes', defaultqueue: 'q' }),
    ).toEqual([
      'unknown option "defaultqueue"; valid options: redis, prefix, defaultQueue, name, contracts, strictJobTypes, waitReplicas',
      'prefix: "a b" may only hold letters, digits, "_", "." and "-" (1-64), e.g. "drover"',
      'defaultQueue: "Q" is not a queue name ([a-z0-9][a-z0-9._-]{0,127}), e.g. "default"',
      'name: "x y" may only hold letters, digits, "_", ".", ":" and "-" (1-128), e.g. "billing-api"',
      'strictJobTypes: expected true or false',
    ]);
    expect(() => resolveOptions('redis://x' as never)).toThrow('invalid DroverModule options: expected an object');
  });

  it('registers contracts by job type and refuses two different ones for a type', () => {
    const a = defineJob('a', { payload: z.object({}) });
    const a2 = defineJob('a', { payload: z.object({ x: z.number() }) });
    expect([...resolveOptions({ contracts: [a, a] }).contracts.keys()]).toEqual(['a']);
    expect(issuesOf({ contracts: [a, a2] })).toEqual([
      'contracts[1]: job type "a" is registered twice with different contracts',
    ]);
    expect(issuesOf({ contracts: [{ jobType: 'x' }] })).toEqual([
      'contracts[0]: expected a contract made with defineJob',
    ]);
    expect(issuesOf({ contracts: 'a' })).toEqual(['contracts: expected a list of contracts made with defineJob']);
  });
});
