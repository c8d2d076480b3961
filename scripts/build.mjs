// Compiles apps/ and libs/ with swc (path aliases rewritten to relative requires), then writes
// dist/apps/<name>/main.js entry points so every app runs as `node dist/apps/<name>/main.js`,
// then builds the web console (console/, Vite + Preact) into dist/console, which the api serves
// at /ui as static files: nothing of Vite or Preact is needed at run time.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
rmSync(join(root, 'dist'), { recursive: true, force: true });
const swc = join(root, 'node_modules', '.bin', 'swc');
const res = spawnSync(
  swc,
  [
    'apps',
    'libs',
    '-d',
    'dist',
    '--config-file',
    '.swcrc',
    '--ignore',
    '**/*.spec.ts,**/*.int-spec.ts,**/*.e2e-spec.ts',
    '--copy-files',
    '--quiet',
  ],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
if (res.status !== 0) process.exit(res.status ?? 1);
for (const app of readdirSync(join(root, 'apps'))) {
  if (!existsSync(join(root, 'dist', 'apps', app, 'src', 'main.js'))) continue;
  mkdirSync(join(root, 'dist', 'apps', app), { recursive: true });
  const entry = join(root, 'dist', 'apps', app, 'main.js');
  // The CLI is the root package's `bin` (`drover`, `npx drover`): a shebang and the execute bit.
  const shebang = app === 'cli' ? '#!/usr/bin/env node\n' : '';
  writeFileSync(entry, `${shebang}'use strict';\nrequire('./src/main.js');\n`);
  if (shebang) chmodSync(entry, 0o755);
}
console.log('built dist/apps/{' + readdirSync(join(root, 'dist', 'apps')).join(',') + '}/main.js');

// After swc: the rm above would delete it otherwise.
const vite = spawnSync(
  join(root, 'node_modules', '.bin', 'vite'),
  ['build', '--config', join(root, 'console', 'vite.config.ts'), '--logLevel', 'warn'],
  { cwd: root, stdio: 'inherit' },
);
if (vite.status !== 0) process.exit(vite.status ?? 1);
console.log('built dist/console (the web console, served at /ui)');
