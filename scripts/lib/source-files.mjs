// The source files of a tree, for the offline checks `npm run lint` runs (check-deps, check-boundaries).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Paths of the files under `dir` whose name matches `pattern`, skipping node_modules, dist and `.d.ts`. */
export function* sourceFiles(dir, pattern) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // a tree without this folder has nothing in it to check
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'dist') yield* sourceFiles(path, pattern);
    } else if (pattern.test(e.name) && !e.name.endsWith('.d.ts')) {
      yield path;
    }
  }
}
