import { ConfigError } from './config-error';
import { parseEnv } from './env.schema';

function errorOf(env: Record<string, string>): ConfigError {
  try {
    parseEnv(env, { pid: 1 });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('parseEnv', () => {
  it('applies the documented defaults (README, Configuration) to an empty environment', () => {
    const env = parseEnv({}, { port: 3001, pid: 42 });
    expect(env).toMatchObject({
      redis: { kind: 'url', url: 'redis://127.0.0.1:6379', tls: false },
      prefix: 'drover',
      leaderTtlMs: 10_000,
      redisWait: { replicas: 0, timeoutMs: 1_000 },
      armLeadMs: 700,
      scheduleHorizonMs: 3_600_000,
      shutdownGraceMs: 30_000,
      apiRateLimitPerMinute: 600,
      apiRefusalLimitPerMinute: 60,
      apiCookieSecure: false,
      apiAllowedHosts: [],
      trustProxy: false,
      apiStreamsPerToken: 50,
      apiStreamsMax: 1000,
      port: 3001,
      logLevel: 'info',
      logFormat: 'json',
    });
    expect(env.instanceId).toMatch(/-42$/);
    expect(env.queues).toBeUndefined();
    expect(env.httpAllow).toBeUndefined();
  });

  it('parses every variable when set', () => {
    const env = parseEnv({
      REDIS_URL: 'rediss://user:p%40ss@127.0.0.1:6380/2',
      DROVER_PREFIX: 'acme',
      DROVER_INSTANCE_ID: 'scheduler-0',
      DROVER_CONFIG: './drover.yaml',
      DROVER_QUEUES: 'default, reports ,',
      DROVER_LEADER_TTL_MS: '5000',
      DROVER_REDIS_WAIT_REPLICAS: '2',
      DROVER_REDIS_WAIT_TIMEOUT_MS: '250',
      DROVER_ARM_LEAD_MS: '0',
      DROVER_SCHEDULE_HORIZON_MS: '60000',
      DROVER_API_TOKENS_FILE: '/etc/tokens.yaml',
      DROVER_API_RATE_LIMIT: '0',
      DROVER_API_REFUSAL_LIMIT: '5',
      DROVER_API_COOKIE_SECURE: 'TRUE',
      DROVER_API_ALLOWED_HOSTS: 'Drover.Example.com., [::1] ,10.0.0.5',
      DROVER_TRUST_PROXY: '10.0.0.0/8, loopback',
      DROVER_API_STREAMS_PER_TOKEN: '5',
      DROVER_API_STREAMS_MAX: '100',
      DROVER_SHUTDOWN_GRACE_MS: '0',
      DROVER_HTTP_ALLOW: 'http://127.0.0.1:8080/,https://hooks.example.com/',
      PORT: '8080',
      LOG_LEVEL: 'DEBUG',
      LOG_FORMAT: 'pretty',
    });
    expect(env).toMatchObject({
      redis: { kind: 'url', tls: true },
      prefix: 'acme',
      instanceId: 'scheduler-0',
      configFile: './drover.yaml',
      queues: ['default', 'reports'],
      leaderTtlMs: 5000,
      redisWait: { replicas: 2, timeoutMs: 250 },
      armLeadMs: 0,
      scheduleHorizonMs: 60_000,
      apiTokensFile: '/etc/tokens.yaml',
      apiRateLimitPerMinute: 0,
      apiRefusalLimitPerMinute: 5,
      apiCookieSecure: true,
      apiAllowedHosts: ['drover.example.com', '[::1]', '10.0.0.5'],
      trustProxy: ['10.0.0.0/8', 'loopback'],
      apiStreamsPerToken: 5,
      apiStreamsMax: 100,
      shutdownGraceMs: 0,
      httpAllow: ['http://127.0.0.1:8080/', 'https://hooks.example.com/'],
      port: 8080,
      logLevel: 'debug',
      logFormat: 'pretty',
    });
  });

  it('takes DROVER_TRUST_PROXY as false, a hop count or a list', () => {
    expect(parseEnv({ DROVER_TRUST_PROXY: 'FALSE' }).trustProxy).toBe(false);
    expect(parseEnv({ DROVER_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(parseEnv({ DROVER_TRUST_PROXY: 'uniquelocal,::1' }).trustProxy).toEqual(['uniquelocal', '::1']);
  });

  it('refuses DROVER_API_TOKENS_FILE set but empty: it never means development mode', () => {
    for (const blank of ['', '  ']) {
      const err = errorOf({ DROVER_API_TOKENS_FILE: blank });
      expect(err.message).toMatch(
        /^DROVER_API_TOKENS_FILE: is set but empty: .*unset the variable for development mode/,
      );
    }
    expect(parseEnv({}).apiTokensFile).toBeUndefined();
    expect(parseEnv({ DROVER_API_TOKENS_FILE: ' /t.yaml ' }).apiTokensFile).toBe('/t.yaml');
  });

  it('treats blank values as unset', () => {
    expect(parseEnv({ REDIS_URL: '  ', PORT: '' }, { port: 3000 })).toMatchObject({
      port: 3000,
      redis: { kind: 'url' },
    });
  });

  it('chooses Sentinel when REDIS_SENTINELS is set, keeping REDIS_URL for credentials', () => {
    const env = parseEnv({
      REDIS_SENTINELS: '127.0.0.1:26379, [::1]:26380',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_URL: 'redis://:secret@127.0.0.1:6379',
    });
    expect(env.redis).toEqual({
      kind: 'sentinel',
      name: 'mymaster',
      url: 'redis://:secret@127.0.0.1:6379',
      sentinels: [
        { host: '127.0.0.1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
    });
  });

  it('chooses Cluster when REDIS_CLUSTER_NODES is set', () => {
    expect(parseEnv({ REDIS_CLUSTER_NODES: '127.0.0.1:7000,127.0.0.1:7001' }).redis).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '127.0.0.1', port: 7001 },
      ],
      url: undefined,
    });
  });

  it('takes TLS files, servername and Sentinel TLS for a rediss:// Sentinel target', () => {
    const env = parseEnv({
      REDIS_SENTINELS: '127.0.0.1:26379',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_TLS: 'FALSE',
      REDIS_URL: 'rediss://:secret@127.0.0.1',
      REDIS_TLS_CA_FILE: '/etc/drover/ca.pem',
      REDIS_TLS_CERT_FILE: '/etc/drover/client.pem',
      REDIS_TLS_KEY_FILE: '/etc/drover/client-key.pem',
      REDIS_TLS_SERVERNAME: 'redis.internal',
    });
    expect(env.redis).toMatchObject({ kind: 'sentinel', sentinelTls: false, servername: 'redis.internal' });
    expect(env.redisTlsFiles).toEqual({
      ca: '/etc/drover/ca.pem',
      cert: '/etc/drover/client.pem',
      key: '/etc/drover/client-key.pem',
    });
  });

  it('allows TLS files for plain data connections when only the Sentinels speak TLS', () => {
    const env = parseEnv({
      REDIS_SENTINELS: '127.0.0.1:26379',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_TLS: 'true',
      REDIS_TLS_CA_FILE: '/etc/drover/ca.pem',
    });
    expect(env.redis).toMatchObject({ kind: 'sentinel', sentinelTls: true });
    expect(parseEnv({}).redisTlsFiles).toEqual({});
  });

  it.each([
    [{ REDIS_URL: 'nonsense' }, 'REDIS_URL', /"nonsense" is not a URL.*e\.g\. rediss:/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, 'REDIS_URL', /scheme "http:" is not redis: or rediss:/],
    [{ REDIS_URL: 'redis://127.0.0.1:6379/abc' }, 'REDIS_URL', /database "abc" is not a number/],
    [{ REDIS_SENTINELS: '127.0.0.1:26379' }, 'REDIS_SENTINEL_NAME', /is required with REDIS_SENTINELS/],
    [{ REDIS_SENTINELS: 'nohost', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINELS', /"nohost" is not host:port/],
    [
      { REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_NAME: 'm', REDIS_CLUSTER_NODES: 'b:2' },
      'REDIS_SENTINELS',
      /cannot be combined/,
    ],
    [{ REDIS_CLUSTER_NODES: '127.0.0.1:99999' }, 'REDIS_CLUSTER_NODES', /is not host:port/],
    [{ REDIS_SENTINEL_TLS: 'yes' }, 'REDIS_SENTINEL_TLS', /"yes" is not one of true\|false/],
    [{ REDIS_SENTINEL_TLS: 'true' }, 'REDIS_SENTINEL_TLS', /is set without REDIS_SENTINELS/],
    [{ REDIS_TLS_SERVERNAME: 'a b' }, 'REDIS_TLS_SERVERNAME', /"a b" is not a host name/],
    [
      { REDIS_TLS_CA_FILE: '/ca.pem' },
      'REDIS_TLS_CA_FILE',
      /is set but no Redis connection uses TLS \(REDIS_URL is not rediss:\/\/\)/,
    ],
    [{ REDIS_TLS_SERVERNAME: 'redis.internal' }, 'REDIS_TLS_SERVERNAME', /no Redis connection uses TLS/],
    [
      { REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_NAME: 'm', REDIS_SENTINEL_TLS: 'false', REDIS_TLS_CA_FILE: '/ca.pem' },
      'REDIS_TLS_CA_FILE',
      /REDIS_URL is not rediss:\/\/ and REDIS_SENTINEL_TLS is not true/,
    ],
    [
      { REDIS_CLUSTER_NODES: 'a:1', REDIS_URL: 'redis://a', REDIS_TLS_KEY_FILE: '/k', REDIS_TLS_CERT_FILE: '/c' },
      'REDIS_TLS_CERT_FILE',
      /no Redis connection uses TLS/,
    ],
    [
      { REDIS_URL: 'rediss://a', REDIS_TLS_CERT_FILE: '/c.pem' },
      'REDIS_TLS_KEY_FILE',
      /is required: a client certificate needs its private key/,
    ],
    [
      { REDIS_URL: 'rediss://a', REDIS_TLS_KEY_FILE: '/k.pem' },
      'REDIS_TLS_CERT_FILE',
      /is required: a private key needs its client certificate/,
    ],
    [{ DROVER_PREFIX: 'a b' }, 'DROVER_PREFIX', /may only hold/],
    [{ DROVER_INSTANCE_ID: 'x y' }, 'DROVER_INSTANCE_ID', /may only hold/],
    [{ DROVER_QUEUES: 'Default' }, 'DROVER_QUEUES', /not \[a-z0-9\]/],
    [{ DROVER_QUEUES: ' , ' }, 'DROVER_QUEUES', /lists nothing/],
    [{ DROVER_LEADER_TTL_MS: '10s' }, 'DROVER_LEADER_TTL_MS', /"10s" is not a whole number \(e\.g\. 10000\)/],
    [{ DROVER_LEADER_TTL_MS: '999' }, 'DROVER_LEADER_TTL_MS', /must be between 1000 and 600000/],
    [{ DROVER_REDIS_WAIT_REPLICAS: '17' }, 'DROVER_REDIS_WAIT_REPLICAS', /between 0 and 16/],
    [{ DROVER_REDIS_WAIT_TIMEOUT_MS: '0' }, 'DROVER_REDIS_WAIT_TIMEOUT_MS', /between 10 and 60000/],
    [{ DROVER_SCHEDULE_HORIZON_MS: '999' }, 'DROVER_SCHEDULE_HORIZON_MS', /between 1000 and 31622400000/],
    [
      { REDIS_CLUSTER_NODES: '127.0.0.1:7000', DROVER_REDIS_WAIT_REPLICAS: '1' },
      'DROVER_REDIS_WAIT_REPLICAS',
      /not supported with REDIS_CLUSTER_NODES/,
    ],
    [{ DROVER_SHUTDOWN_GRACE_MS: '-1' }, 'DROVER_SHUTDOWN_GRACE_MS', /not a whole number/],
    [{ DROVER_HTTP_ALLOW: 'ftp://127.0.0.1/' }, 'DROVER_HTTP_ALLOW', /not an http\(s\) URL prefix/],
    [{ DROVER_HTTP_ALLOW: 'http://u:p@127.0.0.1/' }, 'DROVER_HTTP_ALLOW', /"http:\/\/127\.0\.0\.1…" holds credentials/],
    [{ DROVER_HTTP_ALLOW: 'http://127.0.0.1/a#b' }, 'DROVER_HTTP_ALLOW', /has a #fragment/],
    [{ DROVER_HTTP_ALLOW: 'http://127.0.0.1/a%2Fb' }, 'DROVER_HTTP_ALLOW', /encodes a "\/", "\\", "%" or NUL/],
    [{ DROVER_API_ALLOWED_HOSTS: 'https://drover.example.com' }, 'DROVER_API_ALLOWED_HOSTS', /not a host name/],
    [{ DROVER_API_ALLOWED_HOSTS: 'drover.example.com:443' }, 'DROVER_API_ALLOWED_HOSTS', /no scheme, port/],
    [{ DROVER_TRUST_PROXY: 'true' }, 'DROVER_TRUST_PROXY', /must be false, a number of proxy hops/],
    [{ DROVER_TRUST_PROXY: 'proxy.internal' }, 'DROVER_TRUST_PROXY', /CIDR ranges/],
    [{ DROVER_TRUST_PROXY: '999.1.1.1' }, 'DROVER_TRUST_PROXY', /CIDR ranges/],
    [{ DROVER_TRUST_PROXY: ':' }, 'DROVER_TRUST_PROXY', /CIDR ranges/],
    [{ DROVER_TRUST_PROXY: '10.0.0.0/33' }, 'DROVER_TRUST_PROXY', /CIDR ranges/],
    [{ DROVER_API_STREAMS_PER_TOKEN: '0' }, 'DROVER_API_STREAMS_PER_TOKEN', /between 1 and/],
    [{ DROVER_API_STREAMS_MAX: 'many' }, 'DROVER_API_STREAMS_MAX', /not a whole number/],
    [{ PORT: '70000' }, 'PORT', /between 0 and 65535/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /"loud" is not one of fatal\|error/],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT', /"xml" is not one of json\|pretty/],
  ])('rejects %j naming %s', (env, variable, message) => {
    const err = errorOf(env as Record<string, string>);
    expect(err.variable).toBe(variable);
    expect(err.message.startsWith(`${variable}: `)).toBe(true);
    expect(err.message).toMatch(message);
  });
});
