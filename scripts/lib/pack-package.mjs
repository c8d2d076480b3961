// Builds one package of scripts/lib/packages.mjs into a tarball (see scripts/pack.mjs). tsc compiles the
// entry and every internal lib it imports into a staging dir, with declarations and source maps; the
// `@drover/*` aliases of the emitted .js, .d.ts and maps become relative paths, so the package is
// self-contained; the TypeScript sources ship under src/ so the maps (and "go to definition") resolve.
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(new URL('../..', import.meta.url).pathname);
// `@drover/core/words` is a second entry of one lib (tsconfig.json paths, .swcrc): `@drover/<lib>[/<file>]`.
const ALIAS = /(\brequire\(|\bfrom\s+|\bimport\()(['"])@drover\/([a-z0-9-]+)((?:\/[a-z0-9-]+)*)\2/g;

export class PackError extends Error {}

/** Packs `def` into `outDir`; returns the tarball's path (`drover-<name>-<version>.tgz`). */
export function packPackage(def, outDir) {
  const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const stage = mkdtempSync(join(tmpdir(), `drover-pack-${def.dir}-`));
  try {
    compile(def, stage);
    const dist = join(stage, 'dist');
    const bare = rewriteAliases(dist);
    copyRuntimeFiles(dist);
    shipSources(stage);
    checkDeclared(def, bare);

    const range = (name) => {
      const r = rootPkg.dependencies[name];
      if (!r) throw new PackError(`${def.name}: ${name} is not a dependency of the root package.json`);
      return r;
    };
    const main = `./dist/${def.entry.replace(/\.ts$/, '.js')}`;
    const types = main.replace(/\.js$/, '.d.ts');
    const pkg = {
      name: def.name,
      version: rootPkg.version,
      description: def.description,
      license: rootPkg.license,
      // What the packed code's own dependencies need at run time (ioredis and @nestjs/core: Node 20):
      // the repository's `engines` is higher because its build and test tools need more.
      engines: { node: '>=20' },
      // CommonJS, like the NestJS apps it runs in; an ES module `import` of it works through Node's CJS interop.
      type: 'commonjs',
      main,
      types,
      exports: def.bin
        ? { './package.json': './package.json' }
        : { '.': { types, default: main }, './package.json': './package.json' },
      ...(def.bin && { bin: Object.fromEntries(Object.keys(def.bin).map((b) => [b, `bin/${b}.js`])) }),
      files: ['dist', 'src', 'README.md', ...(def.bin ? ['bin'] : [])],
      dependencies: Object.fromEntries(def.dependencies.map((d) => [d, range(d)])),
      ...(def.peerDependencies.length && {
        peerDependencies: Object.fromEntries(def.peerDependencies.map((d) => [d, range(d)])),
      }),
      ...(def.optionalPeers?.length && {
        peerDependenciesMeta: Object.fromEntries(def.optionalPeers.map((d) => [d, { optional: true }])),
      }),
    };
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    copyFileSync(join(root, def.readme), join(stage, 'README.md'));
    for (const [name, target] of Object.entries(def.bin ?? {})) {
      const shim = join(stage, 'bin', `${name}.js`);
      mkdirSync(dirname(shim), { recursive: true });
      writeFileSync(shim, `#!/usr/bin/env node\n'use strict';\nrequire('../${target}');\n`);
      chmodSync(shim, 0o755);
    }

    mkdirSync(outDir, { recursive: true });
    const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', outDir], {
      cwd: stage,
      encoding: 'utf8',
    });
    if (packed.status !== 0) throw new PackError(`${def.name}: npm pack failed:\n${packed.stderr}`);
    return join(outDir, packed.stdout.trim().split('\n').pop());
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function compile(def, stage) {
  const tsconfig = join(stage, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        declarationMap: true,
        sourceMap: true,
        types: ['node'],
        typeRoots: [join(root, 'node_modules', '@types')],
        rootDir: root,
        outDir: join(stage, 'dist'),
      },
      files: [join(root, def.entry)],
      include: [],
    }),
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const res = spawnSync(process.execPath, [tsc, '-p', tsconfig], { cwd: root, encoding: 'utf8' });
  if (res.status !== 0) throw new PackError(`${def.name}: tsc failed:\n${res.stdout}${res.stderr}`);
}

/** Rewrites `@drover/*` to relative paths; returns the bare module names the .js files require. */
function rewriteAliases(dist) {
  const bare = new Set();
  for (const file of walk(dist).filter((f) => /\.(js|d\.ts)$/.test(f))) {
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(ALIAS, (_, lead, quote, lib, sub) => {
      const target = join(dist, 'libs', lib, 'src', sub);
      if (!existsSync(`${target}.js`) && !existsSync(join(target, 'index.js')))
        throw new PackError(`${relative(dist, file)} imports @drover/${lib}${sub}, which was not compiled`);
      let rel = relative(dirname(file), target);
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return `${lead}${quote}${rel}${quote}`;
    });
    if (rewritten !== text) writeFileSync(file, rewritten);
    if (file.endsWith('.js'))
      for (const m of rewritten.matchAll(/\brequire\(['"]([^'".][^'"]*)['"]\)/g)) bare.add(m[1]);
  }
  return bare;
}

/** Files the compiled code reads at run time (e.g. libs/redis/src/lua/*.lua). */
function copyRuntimeFiles(dist) {
  for (const lib of readdirSync(join(dist, 'libs'))) {
    const src = join(root, 'libs', lib, 'src');
    for (const file of walk(src)) {
      if (/\.(ts|js)$/.test(file) || /(^|\/)(testing|test)\//.test(relative(src, file))) continue;
      const dest = join(dist, 'libs', lib, 'src', relative(src, file));
      mkdirSync(dirname(dest), { recursive: true });
      copyFileSync(file, dest);
    }
  }
}

/** Copies each compiled .ts to src/ and points the source maps (.js.map, .d.ts.map) at those copies. */
function shipSources(stage) {
  const dist = join(stage, 'dist');
  for (const map of walk(dist).filter((f) => f.endsWith('.map'))) {
    const json = JSON.parse(readFileSync(map, 'utf8'));
    json.sources = json.sources.map((s) => {
      const abs = resolve(dirname(map), json.sourceRoot ?? '', s);
      const inRoot = relative(root, abs);
      if (inRoot.startsWith('..'))
        throw new PackError(`${relative(stage, map)} maps to ${abs}, outside the repository`);
      const shipped = join(stage, 'src', inRoot);
      if (!existsSync(shipped)) {
        mkdirSync(dirname(shipped), { recursive: true });
        copyFileSync(abs, shipped);
      }
      return relative(dirname(map), shipped);
    });
    delete json.sourceRoot;
    writeFileSync(map, JSON.stringify(json));
  }
  // The shipped sources keep their `@drover/*` imports readable: they are for reading, not compiling.
}

function checkDeclared(def, bare) {
  const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  const declared = new Set([...def.dependencies, ...def.peerDependencies]);
  const builtins = new Set(builtinModules);
  const undeclared = [...new Set([...bare].map(packageOf))].filter(
    (p) => !declared.has(p) && !builtins.has(p) && !p.startsWith('node:'),
  );
  if (undeclared.length)
    throw new PackError(`${def.name} requires undeclared dependencies: ${undeclared.sort().join(', ')}`);
}

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}
