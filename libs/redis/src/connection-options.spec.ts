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

  it('maps Sentinel with credentials and TLS taken from REDIS_URL', () => {
    const plan = connectionPlan(
      {
        kind: 'sentinel',
        name: 'mymaster',
        sentinels: [{ host: '127.0.0.1', port: 26379 }],
        url: 'rediss://app:s%3Acret@127.0.0.1:6379/3',
      },
      'command',
      'n',
    );
    expect(plan.kind).toBe('single');
    expect(plan.options).toMatchObject({
      name: 'mymaster',
      sentinels: [{ host: '127.0.0.1', port: 26379 }],
      username: 'app',
      password: 's:cret',
      db: 3,
      tls: { servername: '127.0.0.1' },
    });
  });

  it('maps Cluster seed nodes', () => {
    const plan = connectionPlan({ kind: 'cluster', nodes: [{ host: '127.0.0.1', port: 7000 }] }, 'blocking', 'n');
    expect(plan.kind).toBe('cluster');
    if (plan.kind !== 'cluster') return;
    expect(plan.nodes).toEqual([{ host: '127.0.0.1', port: 7000 }]);
    expect(plan.options.redisOptions).toMatchObject({ maxRetriesPerRequest: null });
  });

  it('caps reconnect backoff', () => {
    const plan = connectionPlan({ kind: 'url', url: 'redis://127.0.0.1', tls: false }, 'command', 'n');
    const retry = (plan.kind === 'single' ? plan.options.retryStrategy : undefined)!;
    expect(retry(1)).toBe(200);
    expect(retry(100)).toBe(5000);
  });
});

describe('DroverKeys', () => {
  it('puts Drover keys under one hash tag and each queue under its own on Cluster', () => {
    const keys = new DroverKeys('drover', true);
    expect(keys.core('leader')).toBe('drover:{core}:leader');
    expect(keys.bullQueueName('default')).toBe('{default}');
    expect(new DroverKeys('drover', false).bullQueueName('default')).toBe('default');
  });
});
