// Offline supply-chain check of the production dependencies (package.json `dependencies`), run by
// `npm run lint`:
//   - every production dependency is used by the shipped code (apps/, libs/ outside tests), or is
//     listed in IMPLICIT with the reason nothing imports it by name: an unused dependency is
//     attack surface in every image for nothing;
//   - the shipped code imports no package that is only a devDependency or not declared at all
//     (the image installs `npm ci --omit=dev`, so such an import fails there and nowhere else);
//   - every direct production dependency has one copy in the production tree of the lockfile:
//     two copies of cron-parser let Drover and BullMQ compute different next fire times.
// `node scripts/check-deps.mjs [root]`: exit 0 when clean, 1 with one line per problem.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, sep } from 'node:path';
import { sourceFiles } from './lib/source-files.mjs';

/** Production dependencies no source file names, and why they are needed anyway. */
export const IMPLICIT = {
  '@nestjs/platform-express': 'NestFactory.create loads it by name as the default HTTP adapter',
};

const SHIPPED_DIRS = ['apps', 'libs'];
// Test files and test-only support code: compiled into dist/ by the build but never loaded by an app.
const TEST_ONLY = [/\.(spec|int-spec|e2e-spec)\.ts$/, /(^|\/)(test|testing)\//];
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"\s./][^'"\s]*)['"]/g;
// Type-only imports are erased by the compiler: they load nothing at run time.
const TYPE_ONLY = /\b(?:import|export)\s+type\b[^;]*?\bfrom\s+['"][^'"]+['"]/g;
const STRING = /['"]((?:@[\w.-]+\/)?[\w.-]+)(?:\/[^'"]*)?['"]/g;
const BUILTIN = new Set(builtinModules);

/** The package a module specifier names (`@scope/name/sub` → `@scope/name`), or undefined for built-ins. */
export function packageOf(specifier) {
  if (specifier.startsWith('node:') || BUILTIN.has(specifier.split('/')[0])) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function* shippedFiles(dir, root) {
  for (const path of sourceFiles(dir, /\.(ts|js|mjs|cjs)$/)) {
    const rel = relative(root, path).split(sep).join('/');
    if (!TEST_ONLY.some((re) => re.test(rel))) yield { rel, text: readFileSync(path, 'utf8') };
  }
}

/**
 * The problems of the project at `root`, one sentence each (empty when clean). Pure but for
 * reading `root`'s package.json, package-lock.json and shipped sources.
 */
export function checkDependencies(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const prod = Object.keys(pkg.dependencies ?? {});
  const dev = new Set(Object.keys(pkg.devDependencies ?? {}));
  const peer = new Set(Object.keys(pkg.peerDependencies ?? {}));
  const used = new Set();
  const imported = new Map(); // package -> first file importing it
  for (const dir of SHIPPED_DIRS) {
    for (const { rel, text } of shippedFiles(join(root, dir), root)) {
      // A package named in any string counts as used: pino loads its transports by name.
      for (const m of text.matchAll(STRING)) if (prod.includes(m[1])) used.add(m[1]);
      for (const m of text.replace(TYPE_ONLY, '').matchAll(IMPORT)) {
        const name = packageOf(m[1]);
        if (name && !name.startsWith('@drover/') && !imported.has(name)) imported.set(name, rel);
      }
    }
  }
  for (const name of imported.keys()) used.add(name);

  const problems = [];
  for (const name of prod) {
    if (!used.has(name) && !(name in IMPLICIT)) {
      problems.push(
        `${name}: a production dependency that no shipped file uses; remove it (or list it in IMPLICIT with why)`,
      );
    }
  }
  for (const [name, file] of imported) {
    if (prod.includes(name) || peer.has(name)) continue;
    const why = dev.has(name) ? 'only a devDependency' : 'not declared in package.json';
    problems.push(`${name}: imported by ${file} but ${why}; the image installs production dependencies only`);
  }
  const copies = new Map();
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (entry.dev) continue;
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path);
    if (m && prod.includes(m[1])) copies.set(m[1], [...(copies.get(m[1]) ?? []), `${entry.version} (${path})`]);
  }
  for (const [name, found] of copies) {
    if (found.length > 1) {
      problems.push(
        `${name}: ${found.length} copies in the production tree: ${found.join(', ')}; dedupe it (npm overrides)`,
      );
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
  const problems = checkDependencies(root);
  for (const p of problems) console.error(`check-deps: ${p}`);
  if (problems.length > 0) process.exit(1);
  console.log('check-deps: production dependencies are all used, declared and single-copy');
}
