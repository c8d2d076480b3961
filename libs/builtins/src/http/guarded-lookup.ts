import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressProblem, type HostNaming } from './address-policy';
import { DroverError } from '@drover/core';

/** Every address a host name resolves to (`dns.lookup` with `all: true`, as the OS resolves it). */
export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolveAll: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** Outbound HTTP refused by DROVER_HTTP_ALLOW or the address rules: a policy answer, not a fault. */
export class OutboundRefusedError extends DroverError {
  get code() {
    return 'outbound-refused' as const;
  }

  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/**
 * The `lookup` the socket connects with (net.connect's option): it resolves every address of the
 * host, refuses the connection when any of them is one `naming` does not allow, and hands the
 * socket exactly the addresses it checked. So the check is the resolution used to connect — a DNS
 * answer that changes between a check and the connect (rebinding) cannot slip through.
 * `describe(problem)` words the refusal.
 */
export function guardedLookup(
  naming: HostNaming,
  resolveAll: ResolveAll,
  describe: (problem: string) => string,
): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname).then(
      (found) => {
        for (const { address } of found) {
          const problem = addressProblem(naming, address);
          if (problem)
            return callback(new OutboundRefusedError(describe(`${hostname} resolves to ${address}: ${problem}`)), '');
        }
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const usable = family ? found.filter((a) => a.family === family) : found;
        if (usable.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`${hostname} has no IPv${family ?? ''} address`);
          err.code = 'ENOTFOUND';
          return callback(err, '');
        }
        if (options.all) return callback(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
