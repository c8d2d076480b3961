// What the outside-example tests (scripts/test-example.mjs) share: a work dir (work/dist/packages holds the
// freshly packed tarballs, work/examples/<name> a copy of the example); each example names its Drover
// packages as tarballs vendored in its own folder (`file:vendor/<tarball>`, as a team keeps a package it
// has not published), never by a path into the repository, so the tarballs are copied into its vendor/;
// the install from the example's own package.json and lockfile, and the check that what npm installed
// is the tarball just packed.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
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
import { basename, join, relative } from 'node:path';

export const root = new URL('../..', import.meta.url).pathname;

export class ExampleFailure extends Error {}

/** Throws: the caller's `finally` still stops the apps and Redis. */
export function fail(message) {
  throw new ExampleFailure(message);
}

export function run(cmd, args, cwd, env) {
  const res = spawnSync(cmd, args, {
    cwd,
    env: env ? { ...process.env, ...env } : process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (res.status !== 0)
    fail(`${cmd} ${args.join(' ')} (in ${relative(root, cwd) || '.'}) failed:\n${res.stdout}${res.stderr}`);
  return res.stdout;
}

/** Packs every package into work/dist/packages; returns {name → tarball path}. */
export function packInto(work) {
  const out = join(work, 'dist', 'packages');
  const printed = run(process.execPath, [join(root, 'scripts', 'pack.mjs'), '--out', out], root);
  const tarballs = {};
  for (const path of printed.trim().split('\n')) {
    const pkg = JSON.parse(run('tar', ['-xzOf', path, 'package/package.json'], root));
    tarballs[pkg.name] = path;
  }
  return tarballs;
}

/**
 * Copies examples/<name> (as committed: no node_modules, dist) and examples/shared into work/examples/, checks that
 * its package.json names the tarballs just packed, installs it with `npm ci` and checks the install.
 * `relock` first rewrites the example's `@drover/*` paths and lockfile (in the work copy and the repository).
 */
export function installExample(work, name, tarballs, { relock = false } = {}) {
  const source = join(root, 'examples', name);
  const example = join(work, 'examples', name);
  const asCommitted = (src) => !/[/\\](node_modules|dist|vendor)$/.test(src);
  cpSync(source, example, { recursive: true, filter: asCommitted });
  // What the examples share (the job contracts both compile with their own sources).
  cpSync(join(root, 'examples', 'shared'), join(work, 'examples', 'shared'), { recursive: true, filter: asCommitted });
  const pkgFile = join(example, 'package.json');
  const lockFile = join(example, 'package-lock.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  const drover = Object.keys(pkg.dependencies).filter((d) => d.startsWith('@drover/'));
  const wanted = (dep) => `file:vendor/${basename(tarballs[dep] ?? fail(`no package ${dep} was packed`))}`;
  mkdirSync(join(example, 'vendor'), { recursive: true });
  for (const dep of drover)
    copyFileSync(
      tarballs[dep] ?? fail(`no package ${dep} was packed`),
      join(example, 'vendor', basename(tarballs[dep])),
    );

  if (relock) {
    for (const dep of drover) pkg.dependencies[dep] = wanted(dep);
    writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
    rmSync(lockFile, { force: true });
    run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], example);
    // The tarballs are rebuilt under the same name while the version stays; with an integrity `npm ci`
    // would install npm's cached copy of an older build.
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    for (const dep of drover) delete lock.packages[`node_modules/${dep}`].integrity;
    writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
    copyFileSync(pkgFile, join(source, 'package.json'));
    copyFileSync(lockFile, join(source, 'package-lock.json'));
  }
  if (!existsSync(lockFile))
    fail(`examples/${name} has no package-lock.json; run \`node scripts/test-example.mjs --relock\``);
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
  for (const dep of drover) {
    if (pkg.dependencies[dep] !== wanted(dep))
      fail(
        `examples/${name}/package.json has ${dep}: ${pkg.dependencies[dep]}, not ${wanted(dep)}; run \`node scripts/test-example.mjs --relock\``,
      );
    if (lock.packages?.[`node_modules/${dep}`]?.integrity)
      fail(
        `examples/${name}/package-lock.json pins an integrity for ${dep}, so npm would install a cached older build; run \`node scripts/test-example.mjs --relock\``,
      );
  }
  run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], example);
  for (const dep of drover) assertInstalledIsPacked(example, dep, tarballs[dep]);
  return example;
}

/** The installed package must be exactly the tarball just packed (never a cached older build). */
function assertInstalledIsPacked(example, dep, tgz) {
  const unpacked = mkdtempSync(join(tmpdir(), 'drover-unpacked-'));
  try {
    run('tar', ['-xzf', tgz, '-C', unpacked], root);
    const packed = join(unpacked, 'package');
    const installed = join(example, 'node_modules', ...dep.split('/'));
    for (const file of walk(packed)) {
      const there = join(installed, relative(packed, file));
      if (!existsSync(there) || digest(there) !== digest(file))
        fail(`node_modules/${dep}/${relative(packed, file)} differs from the packed tarball`);
    }
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
  }
}

function walk(dir) {
  return readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? walk(join(dir, e)) : [join(dir, e)]));
}

function digest(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Runs `node <script> …args` in `cwd` to its end; resolves {code, text} (stdout and stderr). */
export function runNode(script, args, cwd, env, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    child.stderr.on('data', (c) => (text += c));
    const timer = setTimeout(() => {
      text += `\n(killed after ${timeoutMs} ms)\n`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, text });
    });
  });
}

export function makeWork() {
  return mkdtempSync(join(tmpdir(), 'drover-example-'));
}
