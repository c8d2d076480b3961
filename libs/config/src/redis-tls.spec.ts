import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTestCerts, type TestCerts } from '@drover/testing';
import { loadAppConfig } from './app-config';
import { ConfigError } from './config-error';
import { pemProblem } from './redis-tls';

describe('REDIS_TLS_*_FILE', () => {
  let certs: TestCerts;
  const base = { REDIS_URL: 'rediss://127.0.0.1:6380' };

  beforeAll(() => {
    certs = makeTestCerts();
  });

  afterAll(() => certs.remove());

  function errorOf(env: Record<string, string>): ConfigError {
    try {
      loadAppConfig('test', {}, env);
    } catch (err) {
      if (err instanceof ConfigError) return err;
      throw err;
    }
    throw new Error('expected a ConfigError');
  }

  it('reads the CA, client certificate and key into the Redis target', () => {
    const { redis } = loadAppConfig(
      'test',
      {},
      {
        ...base,
        REDIS_TLS_CA_FILE: certs.caFile,
        REDIS_TLS_CERT_FILE: certs.clientCertFile,
        REDIS_TLS_KEY_FILE: certs.clientKeyFile,
      },
    ).env;
    expect(redis.pem).toEqual(certs.pem);
  });

  it('leaves the target without PEM when no file is named', () => {
    expect(loadAppConfig('test', {}, base).env.redis.pem).toBeUndefined();
  });

  it('names the variable whose file cannot be read', () => {
    const err = errorOf({ ...base, REDIS_TLS_CA_FILE: join(certs.dir, 'missing.pem') });
    expect(err.variable).toBe('REDIS_TLS_CA_FILE');
    expect(err.message).toMatch(/^REDIS_TLS_CA_FILE: cannot read ".*missing\.pem": ENOENT/);
  });

  it('names the variable whose file holds no certificate', () => {
    const err = errorOf({
      ...base,
      REDIS_TLS_CERT_FILE: certs.clientKeyFile,
      REDIS_TLS_KEY_FILE: certs.clientKeyFile,
    });
    expect(err.message).toMatch(/^REDIS_TLS_CERT_FILE: ".*client\.key" holds no PEM certificate/);
  });

  it('refuses an encrypted private key, which Drover has no passphrase for', () => {
    const encrypted = join(certs.dir, 'encrypted.key');
    const { privateKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'not-known' },
    });
    writeFileSync(encrypted, privateKey);
    const err = errorOf({ ...base, REDIS_TLS_CERT_FILE: certs.clientCertFile, REDIS_TLS_KEY_FILE: encrypted });
    expect(err.message).toMatch(/^REDIS_TLS_KEY_FILE: ".*encrypted\.key" holds no usable unencrypted PEM private key/);
  });

  it('tells a certificate from a key', () => {
    expect(pemProblem('ca', certs.pem.ca)).toBeUndefined();
    expect(pemProblem('key', certs.pem.key)).toBeUndefined();
    expect(pemProblem('ca', certs.pem.key)).toMatch(/holds no PEM certificate/);
    expect(pemProblem('key', certs.pem.ca)).toMatch(/holds no usable unencrypted PEM private key/);
  });
});
