import { DroverApiError } from '@drover/api-client';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';

export interface Failure {
  message: string;
  exitCode: ExitCode;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate not trusted',
  CERT_HAS_EXPIRED: 'certificate expired',
  // An https:// URL to a plain-http server: node:https says EPROTO, undici said the OpenSSL reason.
  EPROTO: 'TLS handshake failed (an http:// server?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed (an http:// server?)',
};

/**
 * The network reason behind a `fetch failed` (the CLI's transport, http/node-fetch.ts, reports as
 * Node's fetch does), if that is what `err` is.
 */
function networkReason(err: unknown): string | undefined {
  if (!(err instanceof TypeError) || err.message !== 'fetch failed') return undefined;
  let cause = (err as { cause?: unknown }).cause;
  // Nested: fetch failed → a timeout / AggregateError (IPv4 and IPv6) → errno.
  for (let depth = 0; depth < 4 && cause; depth++) {
    const code = (cause as { code?: string }).code;
    if (code) return NETWORK_CODES[code] ?? code;
    const errors = (cause as { errors?: unknown[] }).errors;
    const next = errors?.[0] ?? (cause as { cause?: unknown }).cause;
    if (!next) return (cause as { message?: string }).message || 'no answer';
    cause = next;
  }
  return 'no answer';
}

function apiFailure(err: DroverApiError, apiUrl: string): Failure {
  const detail = err.problem.detail || err.problem.title;
  if (err.status === 401) {
    return {
      message: `the API at ${apiUrl} refused the token (401 ${detail}): check --token, DROVER_TOKEN or the profile`,
      exitCode: ExitCode.unauthorized,
    };
  }
  if (err.status === 403) return { message: `forbidden (403): ${detail}`, exitCode: ExitCode.unauthorized };
  if (err.status === 404) return { message: `not found (404): ${detail}`, exitCode: ExitCode.notFound };
  const fields = err.fieldErrors.map((f) => `${f.path}: ${f.message}`);
  const reason =
    fields.length > 0 && !fields.every((f) => detail.includes(f)) ? `${detail} (${fields.join('; ')})` : detail;
  const retry = err.status === 429 ? ' — too many requests; wait and retry' : '';
  return {
    message: `${err.problem.title.toLowerCase()} (${err.status}): ${reason}${retry}`,
    exitCode: ExitCode.failed,
  };
}

/** One line and an exit code for anything a command can throw. */
export function explain(err: unknown, apiUrl: () => string | undefined): Failure {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  if (err instanceof DroverApiError) return apiFailure(err, apiUrl() ?? 'the API');
  const network = networkReason(err);
  if (network) {
    return {
      message: `cannot reach the Drover API at ${apiUrl() ?? 'its URL'}: ${network} (set --api-url or DROVER_API_URL)`,
      exitCode: ExitCode.unreachable,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { message: `unexpected error: ${message.split('\n')[0]}`, exitCode: ExitCode.failed };
}
