import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DroverError } from '@drover/core';

/**
 * TLS material for Redis connections beyond what the `rediss://` scheme says, as PEM text.
 * Used for every TLS connection of a target: data nodes, Sentinels, Cluster nodes.
 */
export interface TlsPem {
  /** CA certificate(s) the servers' certificates must chain to; unset = Node's public roots. */
  ca?: string;
  /** Client certificate, for servers that require one (`tls-auth-clients yes`); needs `key`. */
  cert?: string;
  /** Private key of `cert`, unencrypted. */
  key?: string;
}

export type TlsPemPart = keyof TlsPem;

/** The variable that names each part's file. */
export const TLS_FILE_VARIABLES: Record<TlsPemPart, string> = {
  ca: 'REDIS_TLS_CA_FILE',
  cert: 'REDIS_TLS_CERT_FILE',
  key: 'REDIS_TLS_KEY_FILE',
};

/** Why `pem` cannot serve as `part` (a certificate, or an unencrypted private key), or undefined. */
export function pemProblem(part: TlsPemPart, pem: string): string | undefined {
  try {
    if (part === 'key') createPrivateKey(pem);
    else new X509Certificate(pem);
    return undefined;
  } catch (err) {
    const why = (err as Error).message.split('\n')[0];
    return part === 'key'
      ? `holds no usable unencrypted PEM private key (${why})`
      : `holds no PEM certificate (${why})`;
  }
}

/** Why a set of parts cannot be used together, or undefined: a client certificate needs its key. */
export function pemPairProblem(parts: { cert?: unknown; key?: unknown }): string | undefined {
  if (parts.cert !== undefined && parts.key === undefined) return 'a client certificate needs its private key';
  if (parts.key !== undefined && parts.cert === undefined) return 'a private key needs its client certificate';
  return undefined;
}

export class TlsFileError extends DroverError {
  get code() {
    return 'unusable-tls-file' as const;
  }

  constructor(
    readonly part: TlsPemPart,
    readonly problem: string,
  ) {
    super(problem);
    this.name = 'TlsFileError';
  }
}

/**
 * Reads the PEM files named for each part. Throws {@link TlsFileError} naming the part when a
 * file cannot be read or does not hold what its part needs.
 */
export function readTlsFiles(
  files: Partial<Record<TlsPemPart, string>>,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): TlsPem {
  const pem: TlsPem = {};
  for (const part of ['ca', 'cert', 'key'] as const) {
    const path = files[part];
    if (path === undefined) continue;
    let text: string;
    try {
      text = read(path);
    } catch (err) {
      throw new TlsFileError(part, `cannot read "${path}": ${(err as Error).message}`);
    }
    const problem = pemProblem(part, text);
    if (problem) throw new TlsFileError(part, `"${path}" ${problem}`);
    pem[part] = text;
  }
  return pem;
}
