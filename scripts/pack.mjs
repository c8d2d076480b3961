// `npm run pack`: builds Drover's npm packages (scripts/lib/packages.mjs: @drover/client, @drover/worker,
// @drover/cli) and packs each into a versioned tarball, installable with plain `npm install <tarball>`.
//
//   node scripts/pack.mjs [--out <dir>] [<name>…]   (default dir: dist/packages; names: `client`, `worker`…)
//
// Prints one tarball path per line.
import { join, resolve } from 'node:path';
import { PACKAGES } from './lib/packages.mjs';
import { PackError, packPackage } from './lib/pack-package.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const outDir = outAt >= 0 ? resolve(args[outAt + 1] ?? '') : join(root, 'dist', 'packages');
const names = args.filter((_, i) => outAt < 0 || (i !== outAt && i !== outAt + 1));
const unknown = names.filter((n) => !PACKAGES.some((p) => p.dir === n || p.name === n));
if (unknown.length) {
  console.error(`pack: no package ${unknown.join(', ')}; packages: ${PACKAGES.map((p) => p.dir).join(', ')}`);
  process.exit(2);
}
try {
  for (const def of PACKAGES.filter((p) => !names.length || names.includes(p.dir) || names.includes(p.name))) {
    console.log(packPackage(def, outDir));
  }
} catch (err) {
  if (!(err instanceof PackError)) throw err;
  console.error(`pack: ${err.message}`);
  process.exit(1);
}
