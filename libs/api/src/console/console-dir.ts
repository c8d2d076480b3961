import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where the built console lives: `dist/console` beside the repository's (or the image's)
 * package.json, found upwards from this file, so it is the same from src (tests) and dist.
 */
export function consoleDir(from = __dirname): string | undefined {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string };
    if (pkg.name === 'drover') return join(dir, 'dist', 'console');
  }
  return undefined;
}
