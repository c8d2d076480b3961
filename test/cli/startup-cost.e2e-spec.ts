import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'apps', 'cli', 'main.js');

interface Loaded {
  /** Node's fetch, Request, Headers… (undici): tens of ms on a process's first request. */
  undici: boolean;
  /** Every package file the process required. */
  packages: string[];
}

/**
 * What one `drover` process loaded: a preload writes, at exit, whether Node loaded its undici and
 * which files of node_modules were required. Every command is a fresh process, so what it loads is
 * what it costs (docs/benchmarks.md, "CLI").
 */
async function loadedBy(args: string[], env: Record<string, string> = {}): Promise<Loaded & { code: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'drover-cli-load-'));
  const report = join(dir, 'loaded.json');
  const preload = join(dir, 'preload.js');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify({
      undici: process.moduleLoadList.some((m) => m.includes('undici')),
      packages: Object.keys(require.cache).filter((f) => f.includes('/node_modules/')),
    })));\n`,
  );
  // Not spawnSync: the stand-in api below answers from this process's event loop.
  const code = await new Promise<number | null>((resolve) => {
    const env_ = { PATH: process.env.PATH ?? '', HOME: dir, DROVER_CLI_CONFIG: join(dir, 'none.yaml'), ...env };
    execFile(process.execPath, ['-r', preload, BIN, ...args], { env: env_ }, (err) =>
      resolve(err ? ((err as { code?: number }).code ?? 1) : 0),
    );
  });
  return { code, ...(JSON.parse(readFileSync(report, 'utf8')) as Loaded) };
}

const packageNames = (files: string[]) => [
  ...new Set(files.map((f) => /\/node_modules\/((@[^/]+\/)?[^/]+)/.exec(f)![1]!)),
];

describe('what a drover command loads', () => {
  let api: Server;
  let url: string;

  beforeAll(async () => {
    expect(existsSync(BIN)).toBe(true);
    // Stands in for the api: what is measured here is the CLI process, not the answer.
    api = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items":[]}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
  });

  it("calls the api without Node's fetch (undici), on node:http", async () => {
    const run = await loadedBy(['queues', 'ls'], { DROVER_API_URL: url, DROVER_TOKEN: 't' });
    expect(run.code).toBe(0);
    expect(run.undici).toBe(false);
    expect(packageNames(run.packages)).toEqual(['commander', 'openapi-fetch']);
  });

  it('validates a policy file without NestJS: its loader alone, zod, yaml and the cron parser', async () => {
    const run = await loadedBy(['validate', join(ROOT, 'examples', 'drover.yaml')]);
    expect(run.code).toBe(0);
    expect(run.undici).toBe(false);
    expect(packageNames(run.packages).sort()).toEqual([
      'commander',
      'cron-parser',
      'luxon',
      'openapi-fetch',
      'yaml',
      'zod',
    ]);
  });

  it('prints its version loading nothing but the command-line parser and the typed client (one file)', async () => {
    const run = await loadedBy(['--version']);
    expect([run.code, run.undici, packageNames(run.packages)]).toEqual([0, false, ['commander', 'openapi-fetch']]);
  });
});
