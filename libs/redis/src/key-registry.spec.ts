import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEY_REGISTRY } from './key-registry';

const DOCS = join(__dirname, '../../../docs/redis.md');
const HEADING = '## Every key Drover keeps, and for how long';

/** The rows of the key table under {@link HEADING}: `key | type | builder | lives`, backticks dropped. */
function documentedKeys(markdown: string): string[] {
  const section = markdown.split(HEADING)[1]?.split('\n## ')[0];
  if (!section) throw new Error(`docs/redis.md has no "${HEADING}" section`);
  const rows = section.split('\n').filter((l) => l.startsWith('|'));
  return rows.slice(2).map((row) =>
    row
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1'))
      .join(' | '),
  );
}

/** The same rows, from the registry. */
function registeredKeys(): string[] {
  return Object.entries(KEY_REGISTRY).map(([name, s]) =>
    [`${s.scope === 'core' ? '{core}:' : ''}${s.pattern}`, s.type, name, s.lives].join(' | '),
  );
}

describe('docs/redis.md lists exactly the registered keys', () => {
  const documented = documentedKeys(readFileSync(DOCS, 'utf8'));

  it('documents every registered key, with its type and lifetime', () => {
    expect(registeredKeys().filter((k) => !documented.includes(k))).toEqual([]);
  });

  it('documents no key the registry does not have', () => {
    expect(documented.filter((k) => !registeredKeys().includes(k))).toEqual([]);
  });
});
