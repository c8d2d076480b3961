import { ConfigError } from './config-error';
import { parseApiTokens } from './api-tokens';

const HASH = 'a'.repeat(64);

function problemOf(text: string): string {
  try {
    parseApiTokens(text, 'tokens.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('parseApiTokens', () => {
  it('reads names, roles and lower-cased hashes from YAML or JSON', () => {
    expect(parseApiTokens(`tokens:\n  - {name: ci, role: operator, sha256: ${'A'.repeat(64)}}\n`, 'f')).toEqual([
      { name: 'ci', role: 'operator', sha256: HASH },
    ]);
    expect(parseApiTokens(JSON.stringify({ tokens: [{ name: 'x', role: 'viewer', sha256: HASH }] }), 'f')).toHaveLength(
      1,
    );
  });

  it.each([
    ['tokens: []', 'tokens must list at least one token'],
    [`tokens: [{name: ci, role: root, sha256: ${HASH}}]`, 'tokens.0.role'],
    [
      'tokens: [{name: ci, role: admin, sha256: abc}]',
      "tokens.0.sha256 must be the 64 hex digits of the token's SHA-256",
    ],
    [`tokens: [{name: "a b", role: admin, sha256: ${HASH}}]`, 'tokens.0.name must be 1-128'],
    [`tokens: [{name: ci, role: admin, sha256: ${HASH}, token: secret}]`, 'tokens.0'],
    [`other: 1`, 'has no "tokens:" list'],
    ['tokens: 3', 'tokens must be a list of {name, role, sha256}'],
    [
      `tokens: [{name: a, role: admin, sha256: ${HASH}}, {name: a, role: viewer, sha256: ${'b'.repeat(64)}}]`,
      'tokens.1.name "a" is listed twice',
    ],
    [`tokens: [{name: a, role: admin, sha256: ${HASH}}, {name: b, role: viewer, sha256: ${HASH}}]`, 'same sha256'],
    ['tokens: [', 'is not valid YAML/JSON'],
  ])('refuses %s, naming the variable and the field', (text, expected) => {
    const message = problemOf(text);
    expect(message).toMatch(/^DROVER_API_TOKENS_FILE: /);
    expect(message).toContain(expected);
  });
});
