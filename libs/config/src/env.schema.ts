import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { z } from 'zod';
import { ConfigError } from './config-error';
import { ENV_EXAMPLES } from './env-examples';
import { TLS_FILE_VARIABLES, pemPairProblem, type TlsPem, type TlsPemPart } from './redis-tls';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'json' | 'pretty';

/**
 * Express's `trust proxy`: false (the default: the socket is the client), a number of proxy hops,
 * or a list of addresses, CIDR ranges and Express's names (loopback, linklocal, uniquelocal).
 */
export type TrustProxy = false | number | string[];

export interface HostPort {
  host: string;
  port: number;
}

/** How TLS connections of a target are verified and authenticated; TLS itself is on per `rediss://`. */
export interface RedisTlsSettings {
  pem?: TlsPem;
  /** The name every node's certificate is checked against (and sent as SNI); unset = the host dialled. */
  servername?: string;
}

/**
 * Where Redis is: exactly one of the three shapes, chosen by which variables are set. Data
 * connections use TLS when `url` is `rediss://`; the connections to Sentinels when `sentinelTls`
 * says so (unset = like the data connections).
 */
export type RedisTarget =
  | ({ kind: 'url'; url: string; tls: boolean } & RedisTlsSettings)
  | ({ kind: 'sentinel'; sentinels: HostPort[]; name: string; url?: string; sentinelTls?: boolean } & RedisTlsSettings)
  | ({ kind: 'cluster'; nodes: HostPort[]; url?: string } & RedisTlsSettings);

/** Every variable of the README's Configuration table, parsed and defaulted. Nothing else in Drover reads process.env. */
export interface DroverEnv {
  /** Without its `pem` until the files are read (see {@link loadAppConfig}). */
  redis: RedisTarget;
  /** The PEM files named by REDIS_TLS_CA_FILE / _CERT_FILE / _KEY_FILE. */
  redisTlsFiles: Partial<Record<TlsPemPart, string>>;
  prefix: string;
  instanceId: string;
  configFile?: string;
  queues?: string[];
  leaderTtlMs: number;
  /**
   * Replicas that must acknowledge (Redis WAIT) each slot claim and each run enqueued before it
   * counts (DROVER_REDIS_WAIT_REPLICAS; 0 = no WAIT), and how long to wait for them.
   */
  redisWait: { replicas: number; timeoutMs: number };
  /**
   * How long before its slot an armed run becomes available to workers (DROVER_ARM_LEAD_MS): the
   * scheduler delays it until slot − lead, a worker takes it then and starts it on its own timer at
   * the slot. Read by the scheduler (the delay) and the worker (how far ahead it holds a run).
   */
  armLeadMs: number;
  /**
   * Scheduler: how far ahead a routine's Job Schedulers are kept in BullMQ
   * (DROVER_SCHEDULE_HORIZON_MS); a routine whose next slot is further off gets them this long before it.
   */
  scheduleHorizonMs: number;
  apiTokensFile?: string;
  /** Mutating API requests each token may make per minute, per api process (0 = no limit). */
  apiRateLimitPerMinute: number;
  /**
   * Refused unauthenticated API requests (no or an invalid token, a failed login) each client
   * address may make per minute, per api process, before it gets 429s (0 = no limit).
   */
  apiRefusalLimitPerMinute: number;
  /**
   * Mark the console's session cookie `Secure` on every answer, not only on requests that arrived
   * over TLS: for an api behind a TLS-terminating proxy, where the api itself sees plain HTTP.
   */
  apiCookieSecure: boolean;
  /**
   * Host names (besides loopback ones) the api answers in development mode, and whose origins count
   * as the api's own for browser writes (DROVER_API_ALLOWED_HOSTS). Lower case, no port.
   */
  apiAllowedHosts: string[];
  /** Express's `trust proxy` (DROVER_TRUST_PROXY): which peers' X-Forwarded-Proto/-For count. */
  trustProxy: TrustProxy;
  /** Open event streams allowed per token name, per api process (DROVER_API_STREAMS_PER_TOKEN). */
  apiStreamsPerToken: number;
  /** Open event streams allowed per api process (DROVER_API_STREAMS_MAX). */
  apiStreamsMax: number;
  shutdownGraceMs: number;
  httpAllow?: string[];
  port?: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

/**
 * Default lead of an armed run (see `armLeadMs`). A worker fetches one job per round trip, so 200 runs
 * due together took 0.3–0.6 s to fetch on a loaded 2-core machine: with 300 ms the last ones were
 * still fetched after their slot, with 700 ms none was (docs/benchmarks.md).
 */
export const DEFAULT_ARM_LEAD_MS = 700;

/** Default schedule horizon (see `scheduleHorizonMs`): an hour of leader outage before a far routine's slot is still covered. */
export const DEFAULT_SCHEDULE_HORIZON_MS = 3_600_000;

/** Default caps on open event streams (the console keeps one or two per browser tab). */
export const DEFAULT_STREAMS_PER_TOKEN = 50;
export const DEFAULT_STREAMS_MAX = 1000;

const NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const blankToUndefined = (v: unknown) =>
  typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v;
const opt = <T extends z.ZodType>(s: T) => z.preprocess(blankToUndefined, s.optional());

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { message: 'is not a whole number' })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { message: `must be between ${min} and ${max}` });

const redisUrl = z.string().superRefine((raw, ctx) => {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return ctx.addIssue({ code: 'custom', message: `"${raw}" is not a URL` });
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    return ctx.addIssue({ code: 'custom', message: `scheme "${u.protocol}" is not redis: or rediss:` });
  }
  if (!u.hostname) return ctx.addIssue({ code: 'custom', message: 'has no host' });
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) ctx.addIssue({ code: 'custom', message: `database "${db}" is not a number` });
});

const hostPorts = z.string().transform((raw, ctx) =>
  raw.split(',').map((part) => {
    const m = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(part);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535) {
      ctx.addIssue({ code: 'custom', message: `"${part.trim()}" is not host:port` });
      return { host: '', port: 0 };
    }
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  }),
);

const commaList = (item: z.ZodString | z.ZodType<string, string>) =>
  z
    .string()
    .transform((raw) =>
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1, { message: 'lists nothing' }));

/** A DNS name or an IP address as a Host header carries it (IPv6 in brackets), without a port. */
const HOST_NAME =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])$/;
const hostName = z
  .string()
  // A trailing dot names the same host; Host headers are compared without it.
  .transform((h) => h.toLowerCase().replace(/\.$/, ''))
  .refine((h) => h.length <= 253 && HOST_NAME.test(h), {
    message: 'holds an entry that is not a host name (no scheme, port or path; IPv6 in brackets)',
  });

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
/** An IPv4 or IPv6 address, optionally with a prefix length its family allows (`10.0.0.0/8`). */
const isIpOrCidr = (entry: string): boolean => {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
};
const trustProxy = z.string().transform((raw, ctx): TrustProxy => {
  const v = raw.trim().toLowerCase();
  if (v === 'false') return false;
  if (/^\d{1,2}$/.test(v)) return Number(v);
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.find((e) => !PROXY_NAMES.has(e) && !isIpOrCidr(e));
  if (bad !== undefined || list.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message:
        'must be false, a number of proxy hops, or a comma list of addresses, CIDR ranges, loopback, linklocal or uniquelocal',
    });
  }
  return list;
});

/**
 * One DROVER_HTTP_ALLOW entry (matched in libs/builtins, url-allowlist): an http(s) URL without
 * credentials or fragment, whose path holds no encoded `/`, `\`, `%` or NUL — an entry is matched by
 * whole path segments, and such a segment could be read as another path by the receiver.
 */
const httpPrefix = z.string().superRefine((p, ctx) => {
  let u: URL;
  try {
    u = new URL(p);
  } catch {
    return ctx.addIssue({ code: 'custom', message: `"${p}" is not an http(s) URL prefix` });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return ctx.addIssue({ code: 'custom', message: `"${p}" is not an http(s) URL prefix` });
  }
  if (u.username || u.password) ctx.addIssue({ code: 'custom', message: `"${u.origin}…" holds credentials` });
  if (u.hash) ctx.addIssue({ code: 'custom', message: `"${p}" has a #fragment, which is never sent` });
  if (/%(2f|5c|25|00)/i.test(u.pathname)) {
    ctx.addIssue({ code: 'custom', message: `"${p}" encodes a "/", "\\", "%" or NUL in its path` });
  }
});

/** The zod schema of the environment (README, Configuration): one entry per variable, keyed by the variable's own name. */
export const envSchema = z.object({
  REDIS_URL: opt(redisUrl),
  REDIS_SENTINELS: opt(hostPorts),
  REDIS_SENTINEL_NAME: opt(z.string().regex(/^[A-Za-z0-9_.-]+$/, { message: 'is not a sentinel master name' })),
  REDIS_CLUSTER_NODES: opt(hostPorts),
  REDIS_SENTINEL_TLS: opt(
    z
      .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['true', 'false']))
      .transform((v) => v === 'true'),
  ),
  REDIS_TLS_CA_FILE: opt(z.string()),
  REDIS_TLS_CERT_FILE: opt(z.string()),
  REDIS_TLS_KEY_FILE: opt(z.string()),
  REDIS_TLS_SERVERNAME: opt(z.string().regex(/^[A-Za-z0-9.:-]{1,253}$/, { message: 'is not a host name' })),
  DROVER_PREFIX: opt(
    z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'may only hold letters, digits, "_", "." and "-" (1-64)' }),
  ),
  DROVER_INSTANCE_ID: opt(
    z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, { message: 'may only hold letters, digits, "_", ".", ":" and "-"' }),
  ),
  DROVER_CONFIG: opt(z.string()),
  DROVER_QUEUES: opt(
    commaList(z.string().regex(NAME, { message: 'holds a name that is not [a-z0-9][a-z0-9._-]{0,127}' })),
  ),
  DROVER_LEADER_TTL_MS: opt(wholeNumber(1_000, 600_000)),
  DROVER_REDIS_WAIT_REPLICAS: opt(wholeNumber(0, 16)),
  DROVER_REDIS_WAIT_TIMEOUT_MS: opt(wholeNumber(10, 60_000)),
  DROVER_ARM_LEAD_MS: opt(wholeNumber(0, 10_000)),
  DROVER_SCHEDULE_HORIZON_MS: opt(wholeNumber(1_000, 31_622_400_000)),
  // Not opt(): set but blank is an error (see parseEnv), never development mode.
  DROVER_API_TOKENS_FILE: z.string().optional(),
  DROVER_API_RATE_LIMIT: opt(wholeNumber(0, 1_000_000)),
  DROVER_API_REFUSAL_LIMIT: opt(wholeNumber(0, 1_000_000)),
  DROVER_API_COOKIE_SECURE: opt(
    z
      .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['true', 'false']))
      .transform((v) => v === 'true'),
  ),
  DROVER_API_ALLOWED_HOSTS: opt(commaList(hostName)),
  DROVER_TRUST_PROXY: opt(trustProxy),
  DROVER_API_STREAMS_PER_TOKEN: opt(wholeNumber(1, 100_000)),
  DROVER_API_STREAMS_MAX: opt(wholeNumber(1, 1_000_000)),
  DROVER_SHUTDOWN_GRACE_MS: opt(wholeNumber(0, 3_600_000)),
  DROVER_HTTP_ALLOW: opt(commaList(httpPrefix)),
  PORT: opt(wholeNumber(0, 65535)),
  LOG_LEVEL: opt(
    z.preprocess(
      (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    ),
  ),
  LOG_FORMAT: opt(z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['json', 'pretty']))),
});

/** Rejects TLS variables that would have no effect, so a typo does not silently turn TLS checks off. */
function checkTlsVariables(
  redis: RedisTarget,
  files: Partial<Record<TlsPemPart, string>>,
  sentinelTls: boolean | undefined,
  servername: string | undefined,
): void {
  if (sentinelTls !== undefined && redis.kind !== 'sentinel') {
    throw new ConfigError('REDIS_SENTINEL_TLS', 'is set without REDIS_SENTINELS');
  }
  const pair = pemPairProblem(files);
  if (pair) {
    const missing = files.cert === undefined ? 'cert' : 'key';
    throw new ConfigError(
      TLS_FILE_VARIABLES[missing],
      `is required: ${pair}`,
      ENV_EXAMPLES[TLS_FILE_VARIABLES[missing]],
    );
  }
  const dataTls = (redis.kind === 'url' ? redis.url : (redis.url ?? '')).startsWith('rediss:');
  if (dataTls || (redis.kind === 'sentinel' && sentinelTls)) return;
  const stray = (['ca', 'cert', 'key'] as const).find((p) => files[p] !== undefined);
  const variable = stray ? TLS_FILE_VARIABLES[stray] : servername ? 'REDIS_TLS_SERVERNAME' : undefined;
  if (!variable) return;
  const why =
    redis.kind === 'sentinel'
      ? 'REDIS_URL is not rediss:// and REDIS_SENTINEL_TLS is not true'
      : 'REDIS_URL is not rediss://';
  throw new ConfigError(variable, `is set but no Redis connection uses TLS (${why})`);
}

function describe(issue: z.core.$ZodIssue, raw: string | undefined): string {
  if (issue.code === 'invalid_value') return `"${raw}" is not one of ${issue.values.join('|')}`;
  return raw !== undefined && !issue.message.includes(`"${raw}"`) ? `"${raw}" ${issue.message}` : issue.message;
}

/**
 * Parses the environment into a {@link DroverEnv}. Throws {@link ConfigError} naming the first
 * bad variable; reads nothing but the given record.
 */
export function parseEnv(
  env: Record<string, string | undefined>,
  defaults: { port?: number; pid?: number } = {},
): DroverEnv {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    throw new ConfigError(variable, describe(issue, env[variable]?.trim()), ENV_EXAMPLES[variable]);
  }
  const e = parsed.data;
  if (e.DROVER_API_TOKENS_FILE !== undefined && e.DROVER_API_TOKENS_FILE.trim() === '') {
    // An empty value is what a failed `$(…)` or a blank template renders: it must not mean "no auth".
    throw new ConfigError(
      'DROVER_API_TOKENS_FILE',
      'is set but empty: name a tokens file, or unset the variable for development mode (loopback only)',
      ENV_EXAMPLES.DROVER_API_TOKENS_FILE,
    );
  }
  if (e.REDIS_SENTINELS && e.REDIS_CLUSTER_NODES) {
    throw new ConfigError('REDIS_SENTINELS', 'cannot be combined with REDIS_CLUSTER_NODES; set only one');
  }
  if (e.REDIS_SENTINELS && !e.REDIS_SENTINEL_NAME) {
    throw new ConfigError('REDIS_SENTINEL_NAME', 'is required with REDIS_SENTINELS', ENV_EXAMPLES.REDIS_SENTINEL_NAME);
  }
  const url = e.REDIS_URL;
  const tls = e.REDIS_TLS_SERVERNAME ? { servername: e.REDIS_TLS_SERVERNAME } : {};
  const redis: RedisTarget = e.REDIS_SENTINELS
    ? {
        kind: 'sentinel',
        sentinels: e.REDIS_SENTINELS,
        name: e.REDIS_SENTINEL_NAME!,
        url,
        ...(e.REDIS_SENTINEL_TLS !== undefined && { sentinelTls: e.REDIS_SENTINEL_TLS }),
        ...tls,
      }
    : e.REDIS_CLUSTER_NODES
      ? { kind: 'cluster', nodes: e.REDIS_CLUSTER_NODES, url, ...tls }
      : { kind: 'url', url: url ?? 'redis://127.0.0.1:6379', tls: (url ?? '').startsWith('rediss:'), ...tls };
  if (e.REDIS_CLUSTER_NODES && (e.DROVER_REDIS_WAIT_REPLICAS ?? 0) > 0) {
    // WAIT must go to the node that took the write; Drover's cluster connection cannot aim it there.
    throw new ConfigError('DROVER_REDIS_WAIT_REPLICAS', 'is not supported with REDIS_CLUSTER_NODES; unset it or set 0');
  }
  const redisTlsFiles = { ca: e.REDIS_TLS_CA_FILE, cert: e.REDIS_TLS_CERT_FILE, key: e.REDIS_TLS_KEY_FILE };
  checkTlsVariables(redis, redisTlsFiles, e.REDIS_SENTINEL_TLS, e.REDIS_TLS_SERVERNAME);
  return {
    redis,
    redisTlsFiles: Object.fromEntries(Object.entries(redisTlsFiles).filter(([, v]) => v !== undefined)),
    prefix: e.DROVER_PREFIX ?? 'drover',
    instanceId: e.DROVER_INSTANCE_ID ?? `${hostname()}-${defaults.pid ?? process.pid}`,
    configFile: e.DROVER_CONFIG,
    queues: e.DROVER_QUEUES,
    leaderTtlMs: e.DROVER_LEADER_TTL_MS ?? 10_000,
    redisWait: { replicas: e.DROVER_REDIS_WAIT_REPLICAS ?? 0, timeoutMs: e.DROVER_REDIS_WAIT_TIMEOUT_MS ?? 1_000 },
    armLeadMs: e.DROVER_ARM_LEAD_MS ?? DEFAULT_ARM_LEAD_MS,
    scheduleHorizonMs: e.DROVER_SCHEDULE_HORIZON_MS ?? DEFAULT_SCHEDULE_HORIZON_MS,
    apiTokensFile: e.DROVER_API_TOKENS_FILE?.trim(),
    apiRateLimitPerMinute: e.DROVER_API_RATE_LIMIT ?? 600,
    apiRefusalLimitPerMinute: e.DROVER_API_REFUSAL_LIMIT ?? 60,
    apiCookieSecure: e.DROVER_API_COOKIE_SECURE ?? false,
    apiAllowedHosts: e.DROVER_API_ALLOWED_HOSTS ?? [],
    trustProxy: e.DROVER_TRUST_PROXY ?? false,
    apiStreamsPerToken: e.DROVER_API_STREAMS_PER_TOKEN ?? DEFAULT_STREAMS_PER_TOKEN,
    apiStreamsMax: e.DROVER_API_STREAMS_MAX ?? DEFAULT_STREAMS_MAX,
    shutdownGraceMs: e.DROVER_SHUTDOWN_GRACE_MS ?? 30_000,
    httpAllow: e.DROVER_HTTP_ALLOW,
    port: e.PORT ?? defaults.port,
    logLevel: e.LOG_LEVEL ?? 'info',
    logFormat: e.LOG_FORMAT ?? 'json',
  };
}
