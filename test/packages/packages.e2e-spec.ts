// Drover's npm packages as a team meets them: `npm run pack`, then a fresh app (`npm init -y`) installs the
// tarballs and their peers from the registry, requires each entry, compiles TypeScript against the
// installed types, and the CLI is installed globally into a temporary prefix and run from there.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface PackedJson {
  name: string;
  version: string;
  main?: string;
  types?: string;
  exports?: Record<string, unknown>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function sh(cmd: string, args: string[], cwd: string): string {
  const res = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${res.status}):\n${res.stdout}${res.stderr}`);
  return res.stdout;
}

/** The version the repository itself installed: the app gets the peers Drover is tested with. */
function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** Every name docs/worker.md imports from `spec`, as the import lists spell them (`type X` kept). */
function namesImportedInDocs(doc: string, spec: string): string[] {
  const text = readFileSync(join(ROOT, 'docs', doc), 'utf8');
  const names = new Set<string>();
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'([^']+)'/g))
    if (m[2] === spec) for (const n of m[1]!.split(',')) if (n.trim()) names.add(n.trim());
  return [...names];
}

describe('the npm packages (npm run pack)', () => {
  const work = mkdtempSync(join(tmpdir(), 'drover-packages-'));
  const out = join(work, 'packages');
  const app = join(work, 'app');
  const prefix = join(work, 'global');
  const tarballs: Record<string, string> = {};
  const packed: Record<string, PackedJson> = {};

  beforeAll(() => {
    const printed = sh(process.execPath, [join(ROOT, 'scripts', 'pack.mjs'), '--out', out], ROOT);
    for (const path of printed.trim().split('\n')) {
      const pkg = JSON.parse(sh('tar', ['-xzOf', path, 'package/package.json'], ROOT)) as PackedJson;
      tarballs[pkg.name] = path;
      packed[pkg.name] = pkg;
    }
    const peers = new Set<string>(['typescript', '@types/node']);
    for (const pkg of Object.values(packed)) for (const p of Object.keys(pkg.peerDependencies ?? {})) peers.add(p);
    mkdirSync(app);
    sh('npm', ['init', '-y'], app);
    sh(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarballs['@drover/client']!,
        tarballs['@drover/worker']!,
        ...[...peers].map((p) => `${p}@${installedVersion(p)}`),
      ],
      app,
    );
    sh(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarballs['@drover/cli']!,
      ],
      work,
    );
  }, 300_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('writes one versioned tarball per package, each a proper package', () => {
    expect(Object.keys(packed).sort()).toEqual(['@drover/cli', '@drover/client', '@drover/worker']);
    for (const [name, pkg] of Object.entries(packed)) {
      expect(basename(tarballs[name]!)).toBe(`${name.slice(1).replace('/', '-')}-${VERSION}.tgz`);
      expect(pkg.version).toBe(VERSION);
      expect(pkg.engines?.node).toBeDefined();
      // Nothing a registry install cannot resolve: no relative, file: or workspace: ranges.
      for (const range of Object.values({ ...pkg.dependencies, ...pkg.peerDependencies }))
        expect(range).toMatch(/^[\^~]?\d/);
      expect(Object.keys(pkg.dependencies ?? {}).filter((d) => d.startsWith('@drover/'))).toEqual([]);
    }
    for (const name of ['@drover/client', '@drover/worker']) {
      const pkg = packed[name]!;
      expect(pkg.exports?.['.']).toEqual({ types: pkg.types, default: pkg.main });
      // One copy of each in the app: the app's NestJS, queue client, Redis client and schemas.
      expect(Object.keys(pkg.peerDependencies ?? {})).toEqual(
        expect.arrayContaining([
          '@nestjs/common',
          '@nestjs/core',
          'bullmq',
          'ioredis',
          'reflect-metadata',
          'rxjs',
          'zod',
        ]),
      );
    }
    expect(packed['@drover/cli']!.bin).toEqual({ drover: 'bin/drover.js' });
  });

  it('installs into a plain app: each entry loads with the exports and typed errors users need, one copy of each peer', () => {
    const script = `
      const client = require('@drover/client');
      const worker = require('@drover/worker');
      const missing = (m, names) => names.filter((n) => typeof m[n] !== 'function');
      const peerDir = (from, p) => require.resolve(p + '/package.json', { paths: [require.resolve(from)] });
      console.log(JSON.stringify({
        client: missing(client, ['DroverModule', 'DroverClient', 'defineJob', 'InvalidPayloadError', 'RunNotFoundError',
          'RunWaitTimeoutError', 'IdempotencyKeyConflictError', 'UnknownJobTypeError', 'UnknownQueueError', 'InvalidOptionsError']),
        worker: missing(worker, ['JobHandler', 'WorkerRuntimeModule', 'PlatformModule', 'runApp', 'defineJob', 'AppConfig',
          'PermanentError', 'JobTimeoutError', 'JobCanceledError', 'LeaseLostError', 'WorkerShutdownError', 'InvalidPayloadError',
          'ConfigError']),
        version: worker.droverVersion(),
        peers: ['zod', 'bullmq', 'ioredis', '@nestjs/common'].filter((p) =>
          peerDir('@drover/worker', p) !== require.resolve(p + '/package.json') ||
          peerDir('@drover/client', p) !== require.resolve(p + '/package.json')),
      }));`;
    const seen = JSON.parse(sh(process.execPath, ['-e', script], app)) as Record<string, unknown>;
    expect(seen).toEqual({ client: [], worker: [], version: VERSION, peers: [] });
  });

  it('ships source maps whose sources are in the package', () => {
    const dir = join(app, 'node_modules', '@drover', 'worker');
    const main = join(dir, packed['@drover/worker']!.main!);
    for (const map of [`${main}.map`, main.replace(/\.js$/, '.d.ts.map')]) {
      const json = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] };
      for (const source of json.sources) expect(existsSync(join(dirname(map), source))).toBe(true);
    }
  });

  it("compiles TypeScript against the installed types, docs/worker.md's imports included", () => {
    const workerNames = namesImportedInDocs('worker.md', '@drover/worker');
    expect(workerNames).toEqual(
      expect.arrayContaining(['JobHandler', 'WorkerRuntimeModule', 'PlatformModule', 'runApp']),
    );
    // The docs import from the packages only, never an internal lib name.
    const internal = readFileSync(join(ROOT, 'docs', 'worker.md'), 'utf8').match(
      /from '@drover\/(?!worker'|client')[^']+'/g,
    );
    expect(internal).toBeNull();
    writeFileSync(
      join(app, 'check.ts'),
      `import { ${workerNames.join(', ')} } from '@drover/worker';
import { DroverModule, DroverClient, defineJob as defineContract, RunWaitTimeoutError, type DroverRun } from '@drover/client';
import { z } from 'zod';
// A contract made with the client's defineJob types the worker's handler: one contract, both sides.
const greet = defineContract('greet', { payload: z.object({ name: z.string() }), result: z.object({ text: z.string() }) });
@JobHandler(greet)
export class GreetHandler {
  async handle(p: PayloadOf<typeof greet>, ctx: JobContext): Promise<ResultOf<typeof greet>> {
    if (!p.name) throw new PermanentError('no name');
    ctx.log.info('greeting');
    return { text: \`hello \${p.name}\` };
  }
}
export async function wait(c: DroverClient): Promise<DroverRun<{ text: string }>> {
  return c.waitForRun(await c.enqueue(greet, { name: 'Ada' }), { timeoutMs: 1 }).catch((e: unknown) => {
    if (e instanceof RunWaitTimeoutError) throw e;
    throw e;
  });
}
export const used = [${workerNames.filter((n) => !n.startsWith('type ')).join(', ')}, DroverModule];
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          moduleResolution: 'node10',
          strict: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
          ignoreDeprecations: '6.0',
        },
        files: ['check.ts'],
      }),
    );
    sh(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], app);
  });

  it('puts a working `drover` on the PATH of a global install', () => {
    const drover = join(prefix, 'bin', 'drover');
    expect(readdirSync(join(prefix, 'bin'))).toContain('drover');
    expect(sh(drover, ['--version'], work).trim()).toBe(VERSION);
    expect(sh(drover, ['validate', join(ROOT, 'examples', 'drover.yaml')], work)).toMatch(/valid/);
  });
});
