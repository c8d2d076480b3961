import { pemPairProblem, pemProblem, type RedisTlsSettings, type TlsPem, type TlsPemPart } from '@drover/config';

const KNOWN = ['ca', 'cert', 'key', 'servername'];
// The rule of REDIS_TLS_SERVERNAME (libs/config).
const SERVERNAME = /^[A-Za-z0-9.:-]{1,253}$/;

/** What decides whether a connection uses TLS at all. */
export interface TlsUse {
  /** The data connections: `url` is `rediss://`. */
  data: boolean;
  /** The connections to Sentinels (Sentinel targets only). */
  sentinels?: boolean;
}

/**
 * Checks `redis.tls` the way libs/config checks the REDIS_TLS_* variables: PEM that parses, a
 * client certificate with its key, and no TLS settings where no connection uses TLS.
 */
export function resolveTls(raw: unknown, use: TlsUse, issues: string[]): RedisTlsSettings {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    issues.push('redis.tls: expected { ca?, cert?, key?, servername? }');
    return {};
  }
  const o = raw as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!KNOWN.includes(key)) issues.push(`redis.tls: unknown option "${key}"; valid options: ${KNOWN.join(', ')}`);
  }
  const pem: TlsPem = {};
  for (const part of ['ca', 'cert', 'key'] as const satisfies TlsPemPart[]) {
    const value = o[part];
    if (value === undefined) continue;
    const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
    const problem = text === undefined ? 'expected PEM text (a string or a Buffer)' : pemProblem(part, text);
    if (problem) issues.push(`redis.tls.${part}: ${problem}`);
    else pem[part] = text;
  }
  const pair = pemPairProblem(o);
  if (pair) issues.push(`redis.tls.${o.cert === undefined ? 'cert' : 'key'}: is required: ${pair}`);
  const servername = o.servername;
  if (servername !== undefined && (typeof servername !== 'string' || !SERVERNAME.test(servername))) {
    issues.push(`redis.tls.servername: ${JSON.stringify(servername)} is not a host name, e.g. "redis.internal"`);
  }
  if (!use.data && !use.sentinels) {
    const why =
      use.sentinels === undefined
        ? 'redis.url is not rediss://'
        : 'redis.url is not rediss:// and sentinelTls is not true';
    issues.push(`redis.tls: is given but no Redis connection uses TLS (${why})`);
  }
  return {
    ...(Object.keys(pem).length > 0 && { pem }),
    ...(typeof servername === 'string' && { servername }),
  };
}
