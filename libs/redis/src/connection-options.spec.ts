import { connectionPlan } from './connection-options';
import { DroverKeys } from './keys';

describe('connectionPlan', () => {
  it('lets blocking connections retry forever and command connections fail fast', () => {
    const target = { kind: 'url', url: 'redis://127.0.0.1:6379', tls: false } as const;
    expect(connectionPlan(target, 'blocking', 'n').options).toMatchObject({ maxRetriesPerRequest: null });
    expect(connectionPlan(target, 'command', 'n').options).toMatchObject({
      maxRetriesPerRequest: 3,
      connectionName: 'n',
    });
  });

  it('maps Sentinel with credentials and TLS taken from REDIS_URL, for the master and the Sentinels', () => {
    const plan = connectionPlan(
      {
        kind: 'sentinel',
        name: 'mymaster',
        sentinels: [{ host: '127.0.0.1', port: 26379 }],
        url: 'rediss://app:s%3Acret@127.0.0.1:6379/3',
        pem: { ca: 'CA' },
      },
      'command',
      'n',
    );
    if (plan.kind !== 'single') throw new Error('expected a single-node plan');
    expect(plan.options).toMatchObject({
      name: 'mymaster',
      sentinels: [{ host: '127.0.0.1', port: 26379 }],
      username: 'app',
      password: 's:cret',
      sentinelUsername: 'app',
      sentinelPassword: 's:cret',
      db: 3,
      enableTLSForSentinelMode: true,
      sentinelTLS: { ca: 'CA' },
    });
    // The master is whatever Sentinel names: its certificate is checked against that host, not the URL's.
    expect(plan.options.tls).toEqual({ ca: 'CA' });
  });

  it('keeps Sentinel connections plain when sentinelTls is false, and data plain for redis://', () => {
    const sentinels = [{ host: '127.0.0.1', port: 26379 }];
    const tlsData = connectionPlan(
      { kind: 'sentinel', name: 'm', sentinels, url: 'rediss://127.0.0.1', sentinelTls: false },
      'command',
      'n',
    ).options;
    expect(tlsData).toMatchObject({ tls: {}, enableTLSForSentinelMode: true });
    expect(tlsData).not.toHaveProperty('sentinelTLS');
    const tlsSentinels = connectionPlan(
      { kind: 'sentinel', name: 'm', sentinels, url: 'redis://127.0.0.1', sentinelTls: true, pem: { ca: 'CA' } },
      'command',
      'n',
    ).options;
    expect(tlsSentinels).toMatchObject({ sentinelTLS: { ca: 'CA' } });
    expect(tlsSentinels).not.toHaveProperty('tls');
    expect(tlsSentinels).not.toHaveProperty('enableTLSForSentinelMode');
  });

  it('passes the CA, client certificate and servername to a rediss:// URL, and nothing to redis://', () => {
    const pem = { ca: 'CA', cert: 'CERT', key: 'KEY' };
    const tls = connectionPlan(
      { kind: 'url', url: 'rediss://127.0.0.1:6380', tls: true, pem, servername: 'redis.internal' },
      'command',
      'n',
    );
    if (tls.kind !== 'single') throw new Error('expected a single-node plan');
    expect(tls.options.tls).toEqual({ ...pem, servername: 'redis.internal' });
    const plain = connectionPlan({ kind: 'url', url: 'redis://127.0.0.1', tls: false }, 'command', 'n');
    expect(plain.options).not.toHaveProperty('tls');
  });

  it('maps Cluster seed nodes', () => {
    const plan = connectionPlan({ kind: 'cluster', nodes: [{ host: '127.0.0.1', port: 7000 }] }, 'blocking', 'n');
    expect(plan.kind).toBe('cluster');
    if (plan.kind !== 'cluster') return;
    expect(plan.nodes).toEqual([{ host: '127.0.0.1', port: 7000 }]);
    expect(plan.options.redisOptions).toMatchObject({ maxRetriesPerRequest: null });
    expect(plan.options.redisOptions).not.toHaveProperty('tls');
    expect(plan.options).not.toHaveProperty('dnsLookup');
  });

  it('checks each Cluster node against its own host over TLS, dialling seed names as given', async () => {
    const plan = connectionPlan(
      {
        kind: 'cluster',
        nodes: [{ host: 'seed.redis.internal', port: 7000 }],
        url: 'rediss://u:p@seed',
        pem: { ca: 'CA' },
      },
      'command',
      'n',
    );
    if (plan.kind !== 'cluster') throw new Error('expected a cluster plan');
    // No servername: a seed's name would be wrong for every other node.
    expect(plan.options.redisOptions?.tls).toEqual({ ca: 'CA' });
    expect(plan.options.redisOptions).toMatchObject({ username: 'u', password: 'p' });
    const resolved = await new Promise((resolve) =>
      plan.options.dnsLookup!('seed.redis.internal', (_, a) => resolve(a)),
    );
    expect(resolved).toBe('seed.redis.internal');
  });

  it('caps reconnect backoff', () => {
    const plan = connectionPlan({ kind: 'url', url: 'redis://127.0.0.1', tls: false }, 'command', 'n');
    const retry = (plan.kind === 'single' ? plan.options.retryStrategy : undefined)!;
    expect(retry(1)).toBe(200);
    expect(retry(100)).toBe(2000);
  });
});

describe('DroverKeys', () => {
  it('puts Drover keys under one hash tag and each queue under its own on Cluster', () => {
    const keys = new DroverKeys('drover', true);
    expect(keys.leader()).toBe('drover:{core}:leader');
    expect(keys.bullQueueName('default')).toBe('{default}');
    expect(new DroverKeys('drover', false).bullQueueName('default')).toBe('default');
  });
});
