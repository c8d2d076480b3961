import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway CA and the certificates it signed, as files in a temp dir (and their PEM text). */
export interface TestCerts {
  dir: string;
  caFile: string;
  /** For servers (Redis, Sentinel): names `localhost` and 127.0.0.1; also usable as a client cert. */
  serverCertFile: string;
  serverKeyFile: string;
  /** For clients of servers that require one (`tls-auth-clients yes`). */
  clientCertFile: string;
  clientKeyFile: string;
  pem: { ca: string; cert: string; key: string };
  remove(): void;
}

export const OPENSSL_INSTALL_HINT =
  'openssl was not found on PATH. Install it: Debian/Ubuntu `sudo apt-get install -y openssl`, macOS `brew install openssl`.';

function openssl(cwd: string, args: string[]): void {
  const res = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (res.error) throw new Error(`${OPENSSL_INSTALL_HINT} (${res.error.message})`);
  if (res.status !== 0) throw new Error(`openssl ${args[0]} failed: ${res.stderr}`);
}

const config = (cn: string, ext: string[]) =>
  ['[req]', 'distinguished_name = dn', 'prompt = no', '[dn]', `CN = ${cn}`, '[ext]', ...ext, ''].join('\n');

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A key and a certificate signed by the CA in `dir`, valid for two days. */
function issue(dir: string, name: string, cn: string, ext: string[]): void {
  writeFileSync(join(dir, `${name}.cnf`), config(cn, ext));
  openssl(dir, ['req', '-new', '-config', `${name}.cnf`, ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-set_serial',
    `0x${randomBytes(8).toString('hex')}`,
    '-days',
    '2',
    '-extfile',
    `${name}.cnf`,
    '-extensions',
    'ext',
    '-out',
    `${name}.crt`,
  ]);
}

/**
 * Generates a private CA, a server certificate for `localhost`/127.0.0.1 and a client
 * certificate with the openssl CLI — fresh per call, so no key is ever committed. Call
 * `remove()` when done.
 */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'drover-tls-'));
  try {
    writeFileSync(
      join(dir, 'ca.cnf'),
      config('drover-test-ca', [
        'basicConstraints = critical,CA:TRUE',
        'keyUsage = critical,keyCertSign,cRLSign',
        'subjectKeyIdentifier = hash',
      ]),
    );
    openssl(
      dir,
      ['req', '-x509', '-config', 'ca.cnf', '-extensions', 'ext', ...EC_KEY].concat([
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-days',
        '2',
      ]),
    );
    issue(dir, 'server', 'localhost', [
      'basicConstraints = CA:FALSE',
      'keyUsage = critical,digitalSignature,keyEncipherment',
      // Redis replicas and Sentinels present the server certificate when they dial other nodes.
      'extendedKeyUsage = serverAuth,clientAuth',
      'subjectAltName = DNS:localhost,IP:127.0.0.1',
    ]);
    issue(dir, 'client', 'drover-test-client', [
      'basicConstraints = CA:FALSE',
      'keyUsage = critical,digitalSignature',
      'extendedKeyUsage = clientAuth',
    ]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const file = (name: string) => join(dir, name);
  return {
    dir,
    caFile: file('ca.crt'),
    serverCertFile: file('server.crt'),
    serverKeyFile: file('server.key'),
    clientCertFile: file('client.crt'),
    clientKeyFile: file('client.key'),
    pem: {
      ca: readFileSync(file('ca.crt'), 'utf8'),
      cert: readFileSync(file('client.crt'), 'utf8'),
      key: readFileSync(file('client.key'), 'utf8'),
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The redis-server / Sentinel arguments that make it speak TLS only (no plain port) with `certs`. */
export function redisTlsArgs(certs: TestCerts, tlsPort: number, authClients: 'yes' | 'no' | 'optional'): string[] {
  return [
    '--port',
    '0',
    '--tls-port',
    String(tlsPort),
    '--tls-cert-file',
    certs.serverCertFile,
    '--tls-key-file',
    certs.serverKeyFile,
    '--tls-ca-cert-file',
    certs.caFile,
    '--tls-auth-clients',
    authClients,
    // Replicas and Sentinels dial other nodes over TLS too.
    '--tls-replication',
    'yes',
  ];
}
