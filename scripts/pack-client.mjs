// `npm run pack:client`: builds `@drover/client` as an npm package and packs it into a tarball, the
// way another team installs it. tsc compiles libs/client (declarations on) with every internal lib it
// imports (core, redis, store, config, logger) into a staging dir; the `@drover/*` aliases in the
// emitted .js and .d.ts become relative paths, so the package is self-contained. Every bare import of
// the emitted code must be a declared dependency or peer dependency, or the pack fails.
//
//   node scripts/pack-client.mjs [--out <dir>]   (default: examples/nest-producer/vendor)
//
// Prints the tarball's path. The tarball is always named drover-client.tgz, so a consumer's
// `file:` dependency (and its lockfile entry) does not change with the version.
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const outDir = resolve(root, outAt >= 0 && args[outAt + 1] ? args[outAt + 1] : 'examples/nest-producer/vendor');
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// What the emitted code may require. Peers are what a NestJS app already has, or what the client's API
// hands back and forth with the app (an ioredis client, zod schemas): one copy of each, the app's.
const DEPENDENCIES = ['bullmq', 'cron-parser', 'pino', 'yaml'];
const PEER_DEPENDENCIES = ['@nestjs/common', '@nestjs/core', 'ioredis', 'reflect-metadata', 'rxjs', 'zod'];

const stage = mkdtempSync(join(tmpdir(), 'drover-client-pack-'));
try {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const res = spawnSync(
    process.execPath,
    [tsc, '-p', join(root, 'libs/client/tsconfig.pack.json'), '--outDir', join(stage, 'dist')],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (res.status !== 0) fail('tsc failed');

  const files = walk(join(stage, 'dist'));
  const bare = new Set();
  for (const file of files.filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(
      /(\brequire\(|\bfrom\s+|\bimport\()(['"])@drover\/([a-z0-9-]+)\2/g,
      (_, lead, quote, lib) => {
        const target = join(stage, 'dist', 'libs', lib, 'src');
        if (!existsSync(join(target, 'index.js')))
          fail(`${relative(stage, file)} imports @drover/${lib}, which was not compiled`);
        let rel = relative(dirname(file), target);
        if (!rel.startsWith('.')) rel = `./${rel}`;
        return `${lead}${quote}${rel}${quote}`;
      },
    );
    if (rewritten !== text) writeFileSync(file, rewritten);
    if (file.endsWith('.js')) {
      for (const m of rewritten.matchAll(/\brequire\(['"]([^'".][^'"]*)['"]\)/g)) bare.add(m[1]);
    }
  }

  // Files the compiled code reads at runtime (e.g. libs/redis/src/lua/*.lua).
  for (const lib of readdirSync(join(stage, 'dist', 'libs'))) {
    for (const src of walk(join(root, 'libs', lib, 'src'))) {
      if (/\.(ts|js)$/.test(src)) continue;
      const dest = join(stage, 'dist', 'libs', lib, 'src', relative(join(root, 'libs', lib, 'src'), src));
      mkdirSync(dirname(dest), { recursive: true });
      copyFileSync(src, dest);
    }
  }

  const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  const declared = new Set([...DEPENDENCIES, ...PEER_DEPENDENCIES]);
  const builtins = new Set(builtinModules);
  const undeclared = [...bare]
    .map(packageOf)
    .filter((p) => !declared.has(p) && !builtins.has(p) && !p.startsWith('node:'));
  if (undeclared.length) fail(`the package requires undeclared dependencies: ${[...new Set(undeclared)].join(', ')}`);

  const range = (name) => rootPkg.dependencies[name] ?? fail(`${name} is not a dependency of the root package.json`);
  const pkg = {
    name: '@drover/client',
    version: rootPkg.version,
    description: 'Enqueue, track and trigger Drover work from any NestJS service',
    license: rootPkg.license,
    engines: rootPkg.engines,
    main: 'dist/libs/client/src/index.js',
    types: 'dist/libs/client/src/index.d.ts',
    files: ['dist', 'README.md'],
    dependencies: Object.fromEntries(DEPENDENCIES.map((d) => [d, range(d)])),
    peerDependencies: Object.fromEntries(PEER_DEPENDENCIES.map((d) => [d, range(d)])),
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  cpSync(join(root, 'docs', 'client.md'), join(stage, 'README.md'));

  mkdirSync(outDir, { recursive: true });
  const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', outDir], { cwd: stage, encoding: 'utf8' });
  if (packed.status !== 0) fail(`npm pack failed:\n${packed.stderr}`);
  const name = packed.stdout.trim().split('\n').pop();
  const tarball = join(outDir, 'drover-client.tgz');
  renameSync(join(outDir, name), tarball);
  console.log(tarball);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

function fail(message) {
  console.error(`pack-client: ${message}`);
  process.exit(1);
}
