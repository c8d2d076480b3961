/**
 * scripts/check-boundaries.mjs run as `npm run lint` runs it, on small project trees written here: each
 * crossing it must catch is planted once, and a clean tree passes. The last case runs it on this
 * repository, so a boundary broken in a change fails here as well as in lint.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const SCRIPT = join(__dirname, '..', '..', 'scripts', 'check-boundaries.mjs');
const REPO = join(__dirname, '..', '..');

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function check(files: Record<string, string>, root?: string): { status: number | null; out: string } {
  if (!root) {
    root = mkdtempSync(join(tmpdir(), 'drover-boundaries-'));
    roots.push(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
  }
  const res = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status: res.status, out: res.stdout + res.stderr };
}

const clean: Record<string, string> = {
  'libs/core/src/index.ts': "export const x = 1;\nimport { join } from 'node:path';\n",
  'libs/store/src/index.ts': "import { x } from '@drover/core';\nimport { y } from './y';\n",
  'libs/store/src/y.ts': 'export const y = 2;\n',
  'libs/store/src/y.int-spec.ts': "import { testRedisUrl } from '@drover/testing';\n",
  'libs/api/src/index.ts': "import { y } from '@drover/store';\nimport type { C } from '@drover/core';\n",
  'apps/api/src/main.ts': "import { ApiModule } from '@drover/api';\n",
  'apps/cli/src/program.ts': "import { droverVersion } from '../../../libs/platform/src/version';\n",
  'console/src/api.ts': "import type { paths } from '@drover/api-client';\n",
};

describe('check-boundaries', () => {
  it('passes a tree whose imports follow the map', () => {
    const res = check(clean);
    expect(res.out).toContain('every import stays inside the boundary map');
    expect(res.status).toBe(0);
  });

  it('refuses the api importing a role or the producer client, type-only imports included', () => {
    const res = check({
      ...clean,
      'libs/api/src/jobs.ts': "import { DroverClient } from '@drover/client';\n",
      'libs/api/src/contracts.ts': "import type { Handler } from '@drover/worker-runtime';\n",
    });
    expect(res.status).toBe(1);
    expect(res.out).toContain('libs/api/src/jobs.ts: imports @drover/client, which libs/api may not import');
    expect(res.out).toContain(
      'libs/api/src/contracts.ts: imports @drover/worker-runtime, which libs/api may not import',
    );
  });

  it('refuses a lower layer importing a higher one, and the console importing a server library', () => {
    const res = check({
      ...clean,
      'libs/core/src/bad.ts': "import { RunStore } from '@drover/store';\n",
      'console/src/bad.ts': "import { mapError } from '@drover/api';\n",
    });
    expect(res.status).toBe(1);
    expect(res.out).toContain('libs/core/src/bad.ts: imports @drover/store, which libs/core may not import');
    expect(res.out).toContain('console/src/bad.ts: imports @drover/api, which console may not import');
  });

  it('refuses a relative path into another library or app unless it is a listed crossing', () => {
    const res = check({
      ...clean,
      'libs/api/src/sneaky.ts': "import { RunStore } from '../../store/src/runs/run.store';\n",
      'apps/worker/src/main.ts': "import { main } from '../../api/src/main';\n",
    });
    expect(res.status).toBe(1);
    expect(res.out).toContain('libs/api/src/sneaky.ts: relative import ../../store/src/runs/run.store leaves libs/api');
    expect(res.out).toContain('apps/worker/src/main.ts: relative import ../../api/src/main leaves apps/worker');
    expect(res.out).not.toContain('apps/cli/src/program.ts');
  });

  it('refuses a library or app missing from the map', () => {
    const res = check({ ...clean, 'libs/extra/src/index.ts': 'export {};\n' });
    expect(res.status).toBe(1);
    expect(res.out).toContain('libs/extra: not in the boundary map');
  });

  it('passes on this repository', () => {
    const res = check({}, REPO);
    expect(res.out).toContain('every import stays inside the boundary map');
    expect(res.status).toBe(0);
  });
});
