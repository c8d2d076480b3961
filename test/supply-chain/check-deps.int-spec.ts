/**
 * scripts/check-deps.mjs run as `npm run lint` runs it, on small project trees written here: each
 * problem it must catch is planted once, and a clean tree passes.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const SCRIPT = join(__dirname, '..', '..', 'scripts', 'check-deps.mjs');

interface Tree {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  /** Lockfile `packages` entries beyond the root. */
  lock?: Record<string, { version: string; dev?: boolean }>;
  files: Record<string, string>;
}

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function check(tree: Tree): { status: number | null; out: string } {
  const root = mkdtempSync(join(tmpdir(), 'drover-deps-'));
  roots.push(root);
  const pkg = { name: 'fixture', dependencies: tree.dependencies ?? {}, devDependencies: tree.devDependencies ?? {} };
  writeFileSync(join(root, 'package.json'), JSON.stringify(pkg));
  const lock = { lockfileVersion: 3, packages: { '': pkg, ...tree.lock } };
  writeFileSync(join(root, 'package-lock.json'), JSON.stringify(lock));
  for (const [path, text] of Object.entries(tree.files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const res = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status: res.status, out: res.stdout + res.stderr };
}

const clean: Tree = {
  dependencies: { bullmq: '^6', pino: '^10', 'pino-pretty': '^13', '@nestjs/platform-express': '^11' },
  devDependencies: { jest: '^30' },
  lock: {
    'node_modules/bullmq': { version: '6.7.0' },
    'node_modules/pino': { version: '10.4.0' },
    'node_modules/jest': { version: '30.0.0', dev: true },
    'node_modules/foo/node_modules/jest': { version: '29.0.0', dev: true },
  },
  files: {
    'libs/queue/src/queue.ts': "import { Queue } from 'bullmq';\nimport { join } from 'node:path';\n",
    'libs/logger/src/log.ts': "import pino from 'pino';\nconst t = { target: 'pino-pretty' };\n",
    'libs/queue/src/queue.spec.ts': "import { expect } from 'jest';\n",
    'libs/testing/src/harness.ts': "import 'jest';\n",
    'apps/api/src/types.ts': "import type { Request } from 'express';\n",
  },
};

describe('scripts/check-deps.mjs', () => {
  it('passes a tree whose production dependencies are used, declared and single-copy', () => {
    const { status, out } = check(clean);
    expect({ status, out }).toEqual({ status: 0, out: expect.stringContaining('all used') });
  });

  it('fails on a production dependency nothing uses, naming it', () => {
    const { status, out } = check({ ...clean, dependencies: { ...clean.dependencies, '@nestjs/config': '^4' } });
    expect(status).toBe(1);
    expect(out).toMatch(/@nestjs\/config: a production dependency that no shipped file uses/);
  });

  it('fails on shipped code importing a devDependency or an undeclared package, not on test code', () => {
    const { status, out } = check({
      ...clean,
      files: {
        ...clean.files,
        'libs/queue/src/uses-jest.ts': "const j = require('jest');\n",
        'apps/api/src/static.ts': "import { Router } from 'express';\n",
      },
    });
    expect(status).toBe(1);
    expect(out).toMatch(/jest: imported by libs\/queue\/src\/uses-jest.ts but only a devDependency/);
    expect(out).toMatch(/express: imported by apps\/api\/src\/static.ts but not declared in package.json/);
    expect(out.match(/imported by/g)).toHaveLength(2);
  });

  it('fails on two copies of a direct production dependency, listing both', () => {
    const { status, out } = check({
      ...clean,
      dependencies: { ...clean.dependencies, 'cron-parser': '^5' },
      lock: {
        ...clean.lock,
        'node_modules/cron-parser': { version: '5.10.5' },
        'node_modules/bullmq/node_modules/cron-parser': { version: '5.10.3' },
      },
      files: { ...clean.files, 'libs/core/src/cron.ts': "import { CronExpressionParser } from 'cron-parser';\n" },
    });
    expect(status).toBe(1);
    expect(out).toMatch(/cron-parser: 2 copies in the production tree: 5.10.5 .*, 5.10.3 \(node_modules\/bullmq/);
  });
});
