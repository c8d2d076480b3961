import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version in Drover's package.json, found upwards from this file: the repository's (`drover`, in src
 * or dist) or, inside an installed package (`@drover/worker`, `@drover/cli`), that package's.
 */
export function droverVersion(from = __dirname): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'drover' || pkg.name?.startsWith('@drover/')) return pkg.version ?? '0.0.0';
  }
  return '0.0.0';
}
