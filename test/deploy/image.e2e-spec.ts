/**
 * The image, without a Docker engine: scripts/image-fileset.mjs replays docker/Dockerfile (its
 * COPY lines, its npm commands, .dockerignore) into a temp dir, and every app is started from that
 * file set the way `docker run` would start it — tini, then node with the app's path, in the
 * image's WORKDIR, as its non-root USER — against a real Redis. A file the runtime stage does not
 * copy is missing here too, and the apps fail.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { freePort, testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { type Container, type Fileset, ROOT, mib, replay, runContainer, waitReady } from './image-fileset';

const DOCKERFILE = join(ROOT, 'docker', 'Dockerfile');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const temps: string[] = [];
const temp = (label: string) => {
  const dir = mkdtempSync(join(tmpdir(), `drover-${label}-`));
  temps.push(dir);
  return dir;
};
const running: Container[] = [];

let fs: Fileset;

beforeAll(() => {
  const res = replay(temp('image'));
  if (!res.ok) throw new Error(`image-fileset failed (${res.status}):\n${res.stderr}`);
  fs = res.fileset;
  // The measurement docs/deploy.md quotes: what the runtime stage adds on top of the base image.
  process.stdout.write(
    `image file set: ${mib(fs.sizes.total)} in ${fs.sizes.files} files ` +
      `(node_modules ${mib(fs.sizes.nodeModules)}, dist ${mib(fs.sizes.dist)}); ` +
      `replayed in ${fs.seconds.toFixed(1)} s, ${fs.cache.hits} cached RUN results\n`,
  );
}, 300_000);

afterAll(async () => {
  await Promise.all(running.map((c) => c.stop('SIGKILL')));
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function start(name: string, args: string[] | undefined, env: Record<string, string> = {}) {
  const port = await freePort();
  const c = runContainer(fs, args, {
    REDIS_URL: testRedisUrl(),
    DROVER_CONFIG: 'examples/drover.yaml', // shipped in the image, relative to its WORKDIR
    DROVER_INSTANCE_ID: name,
    DROVER_SHUTDOWN_GRACE_MS: '10000',
    PORT: String(port),
    ...env,
  });
  running.push(c);
  await waitReady(c, name);
  return c;
}

/**
 * One POST triggers the demo's manual routine; the run must then succeed on a worker. The leading
 * scheduler applies DROVER_CONFIG once it holds the lease, which readiness does not wait for.
 */
async function triggerAndWait(api: string, scheduler: Container): Promise<void> {
  await waitFor('the leader to apply DROVER_CONFIG', () => /applied DROVER_CONFIG/.test(scheduler.output()), {
    timeoutMs: 20_000,
  });
  const res = await fetch(`${api}/api/v1/routines/report-on-demand/trigger`, { method: 'POST' });
  expect(res.status).toBe(201);
  const { runId } = (await res.json()) as { runId: string };
  const run = await waitFor(
    'the triggered run to succeed',
    async () => {
      const r = (await (await fetch(`${api}/api/v1/runs/${runId}`)).json()) as { status: string };
      return r.status === 'succeeded' ? r : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 200 },
  );
  expect(run).toMatchObject({ source: 'manual', routine: 'report-on-demand' });
}

describe('docker/Dockerfile replayed (the image file set)', () => {
  it('holds the built apps and production dependencies only, and runs node under tini as a numeric non-root user', () => {
    const app = join(fs.rootfs, fs.workdir);
    expect(fs.entrypoint).toEqual(['/usr/bin/tini', '--', 'node']);
    expect(fs.cmd).toEqual(['dist/apps/standalone/main.js']);
    expect(fs.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(fs.env).toMatchObject({ NODE_ENV: 'production' });
    for (const name of ['scheduler', 'worker', 'api', 'standalone']) {
      expect(existsSync(join(app, 'dist', 'apps', name, 'main.js'))).toBe(true);
    }
    expect(existsSync(join(app, 'dist', 'libs', 'redis', 'src', 'lua', 'claimSlot-4.lua'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'bullmq'))).toBe(true);
    // Dev dependencies stay in the build stage; sources and tests never reach the image.
    expect(existsSync(join(app, 'dist', 'console', 'index.html'))).toBe(true);
    for (const dev of ['typescript', 'jest', '@swc/core', 'eslint', 'vite', 'preact', 'playwright-core']) {
      expect(existsSync(join(app, 'node_modules', dev))).toBe(false);
    }
    expect(existsSync(join(app, 'apps'))).toBe(false);
    expect(existsSync(join(app, 'libs'))).toBe(false);
    // The host node stands in for the image's. The image runs a supported line, which may be newer
    // than the test machine's: the stand-in is no newer than the image's line, and every native
    // add-on of the production tree has an N-API build, which every newer line loads.
    const major = Number(/node:(\d+)/.exec(readFileSync(DOCKERFILE, 'utf8'))?.[1]);
    expect(Number(process.versions.node.split('.')[0])).toBeLessThanOrEqual(major);
    const addons = nativeAddons(join(app, 'node_modules'));
    for (const dir of new Set(addons.map((f) => dirname(f)))) {
      const here = addons.filter((f) => dirname(f) === dir).map((f) => basename(f));
      // `node.abi115.glibc.node` loads on one line only; a build without an ABI in its name is N-API.
      expect({ dir, napi: !here.every((f) => /\babi\d+\b/.test(f)) }).toEqual({ dir, napi: true });
    }
    // Only system steps (packages, the user) are not replayed, and they run before any COPY.
    expect(fs.skipped.map((s) => s.stage)).toEqual(['runtime']);
  });

  it('runs scheduler, worker and api, each chosen by its command; a triggered run succeeds; SIGTERM exits 0', async () => {
    const prefix = uniquePrefix('image');
    const apps = await Promise.all(
      (['scheduler', 'worker', 'api'] as const).map(async (name) => ({
        name,
        c: await start(name, [`dist/apps/${name}/main.js`], { DROVER_PREFIX: prefix }),
      })),
    );
    const api = apps.find((a) => a.name === 'api')!.c;
    if (process.getuid?.() === 0) {
      // Root here (as in CI) can run the processes as the image's USER: they read everything they need.
      for (const { c } of apps) {
        expect(readFileSync(`/proc/${c.child.pid}/status`, 'utf8')).toMatch(
          new RegExp(`^Uid:\\s+${fs.user.split(':')[0]}\\s`, 'm'),
        );
      }
    }
    await triggerAndWait(api.baseUrl, apps.find((a) => a.name === 'scheduler')!.c);
    // package.json is in the image: the version the api reports is the package's, not 0.0.0.
    const doc = (await (await fetch(`${api.baseUrl}/api/v1/openapi.json`)).json()) as { info: { version: string } };
    expect(doc.info.version).toBe(VERSION);
    for (const { c } of apps) expect((await fetch(`${c.baseUrl}/metrics`)).status).toBe(200);
    // SIGTERM goes to tini (the container's PID 1), which forwards it; node drains and exits 0.
    const codes = await Promise.all(apps.map(({ c }) => c.stop('SIGTERM')));
    expect(codes).toEqual([0, 0, 0]);
    for (const { c } of apps) expect(c.output()).toMatch(/shutdown complete/);
  }, 60_000);

  it('runs standalone with no command (the default CMD)', async () => {
    const c = await start('standalone', undefined, { DROVER_PREFIX: uniquePrefix('image-sa') });
    await triggerAndWait(c.baseUrl, c);
    // The web console ships in the image: its page and the script it loads.
    const page = await fetch(`${c.baseUrl}/ui/routines`);
    expect(page.status).toBe(200);
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect((await fetch(`${c.baseUrl}${script}`)).status).toBe(200);
    expect(await c.stop('SIGTERM')).toBe(0);
  }, 60_000);

  it('fails when the runtime stage forgets files: an app that lacks its libraries does not start', async () => {
    const broken = join(temp('dockerfile'), 'Dockerfile');
    const text = readFileSync(DOCKERFILE, 'utf8');
    const line = 'COPY --from=build /src/dist ./dist';
    expect(text).toContain(line);
    writeFileSync(broken, text.replace(line, 'COPY --from=build /src/dist/apps ./dist/apps'));
    const res = replay(temp('image-broken'), broken);
    if (!res.ok) throw new Error(res.stderr);
    const port = await freePort();
    const c = runContainer(res.fileset, ['dist/apps/worker/main.js'], {
      REDIS_URL: testRedisUrl(),
      PORT: String(port),
    });
    running.push(c);
    expect(await c.exited).not.toBe(0);
    expect(c.output()).toMatch(/Cannot find module/);
  }, 120_000);
});

describe('image-fileset refuses what it cannot replay faithfully', () => {
  const refuses = (edit: (text: string) => string) => {
    const file = join(temp('dockerfile'), 'Dockerfile');
    writeFileSync(file, edit(readFileSync(DOCKERFILE, 'utf8')));
    return replay(temp('image-refused'), file);
  };
  jest.setTimeout(60_000);

  it('a COPY of a file .dockerignore keeps out of the context (the real build would fail too)', () => {
    const res = refuses((t) => t.replace('COPY package.json ./\n', 'COPY package.json README.md ./\n'));
    expect(res).toMatchObject({ ok: false, status: 1 });
    expect(!res.ok && res.stderr).toContain('COPY README.md: not found in the build context');
  });

  it('a system RUN after a COPY (it could change the files this replay produces)', () => {
    const res = refuses((t) => t.replace('USER 10001:10001\n', 'RUN rm -rf dist/libs\nUSER 10001:10001\n'));
    expect(res).toMatchObject({ ok: false, status: 1 });
    expect(!res.ok && res.stderr).toMatch(/line \d+: a RUN that is not an npm command after a COPY/);
  });

  it('an instruction it does not know how to replay', () => {
    const res = refuses((t) => t.replace('COPY package.json ./\n', 'ADD package.json ./\n'));
    expect(res).toMatchObject({ ok: false, status: 1 });
    expect(!res.ok && res.stderr).toMatch(/line \d+: ADD is not replayed/);
  });
});

/** Every native add-on (`*.node`) under `dir`. */
function nativeAddons(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.node'))
    .map((f) => join(dir, f));
}
