import { classifyAddress } from './ip-ranges';

/**
 * How the host of an allowed URL was named, which decides the addresses it may connect to:
 * - `default`: DROVER_HTTP_ALLOW is unset, so only loopback is allowed (a loopback name or address);
 * - `address`: an entry names this IP address itself — the operator chose it, whatever range it is in;
 * - `name`: an entry names this host name; `loopbackName` when the name is `localhost`.
 */
export type HostNaming = { by: 'default' } | { by: 'address' } | { by: 'name'; loopbackName: boolean };

/**
 * Why `address` (one the URL's host resolved to, or the host itself when it is an address) may not
 * be connected to, or undefined when it may. A host name named in DROVER_HTTP_ALLOW may resolve to
 * public and private addresses (an internal service has an internal address: the operator named
 * it), and to loopback only when the name is `localhost`; link-local, cloud metadata and reserved
 * addresses only when an entry names the address itself, so a named host whose DNS points at
 * 169.254.169.254 cannot reach the metadata service. Unspecified (`0.0.0.0`, `::`, which connect to
 * the local host) and multicast addresses are never called.
 */
export function addressProblem(naming: HostNaming, address: string): string | undefined {
  const { kind, label } = classifyAddress(address);
  const what = `${address} is ${label}`;
  if (kind === 'unspecified' || kind === 'multicast') return `${what}, which is never called`;
  switch (naming.by) {
    case 'default':
      return kind === 'loopback' ? undefined : `${what}, and only loopback is allowed while DROVER_HTTP_ALLOW is unset`;
    case 'address':
      return undefined;
    case 'name':
      if (kind === 'public' || kind === 'private') return undefined;
      if (kind === 'loopback') {
        return naming.loopbackName ? undefined : `${what}, which only an entry naming localhost or the address allows`;
      }
      return `${what}, which only an entry naming that address itself allows`;
  }
}
