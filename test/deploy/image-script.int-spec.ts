import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT, isWorkload, type K8sObject } from './support/k8s';

/**
 * `npm run image` (scripts/image.mjs) as a user meets it on a machine without a Docker engine: its
 * arguments, its overlay edit rendered by `kubectl kustomize`, and its refusal to go on without docker.
 * Building and pushing need a daemon and a registry; --dry-run shows the commands it would run.
 */
const SCRIPT = join(ROOT, 'scripts', 'image.mjs');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function image(args: string[], env: NodeJS.ProcessEnv = process.env): { status: number | null; out: string } {
  const res = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: ROOT, encoding: 'utf8', env });
  return { status: res.status, out: `${res.stdout}${res.stderr}` };
}

/** A copy of k8s/ to edit: the repository's overlays keep their default image. */
function k8sCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'drover-image-k8s-'));
  cpSync(join(ROOT, 'k8s'), join(dir, 'k8s'), { recursive: true });
  return dir;
}

function renderedImages(overlay: string): string[] {
  const res = spawnSync('kubectl', ['kustomize', overlay], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect(res.stderr).toBe('');
  const objects = parseAllDocuments(res.stdout).map((d) => d.toJS() as K8sObject);
  return objects.filter(isWorkload).flatMap((w) => w.spec.template.spec.containers.map((c) => c.image));
}

describe('npm run image', () => {
  it('points an overlay at <registry>/drover:<version>, which kubectl kustomize then renders', () => {
    const dir = k8sCopy();
    try {
      const prod = join(dir, 'k8s', 'overlays', 'prod');
      const before = readFileSync(join(prod, 'kustomization.yaml'), 'utf8');
      const run = image(['--registry', 'registry.example.com/team/', '--no-build', '--overlay', prod]);
      expect(run.status).toBe(0);
      expect(run.out).toContain(`now runs registry.example.com/team/drover:${VERSION}`);
      expect(renderedImages(prod)).toEqual(Array(3).fill(`registry.example.com/team/drover:${VERSION}`));
      const after = readFileSync(join(prod, 'kustomization.yaml'), 'utf8');
      // Only the image entry changed: comments and every other line stay.
      expect(after).toContain('# Pin the digest you promoted');
      expect(after.split('\n').filter((l) => !before.includes(l))).toEqual([
        '    newName: registry.example.com/team/drover',
      ]);

      const again = image([
        '--registry',
        'registry.example.com/team',
        '--tag',
        '0.2.0-rc.1',
        '--no-build',
        '--overlay',
        prod,
      ]);
      expect(again.status).toBe(0);
      expect(renderedImages(prod)).toEqual(Array(3).fill('registry.example.com/team/drover:0.2.0-rc.1'));
      // The dev overlay's own Redis image is left alone.
      const dev = join(dir, 'k8s', 'overlays', 'dev');
      expect(image(['--registry', 'ghcr.io/you', '--no-build', '--overlay', dev]).status).toBe(0);
      expect(renderedImages(dev).sort()).toEqual([...Array(3).fill(`ghcr.io/you/drover:${VERSION}`), 'redis:7.4.2']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the build and push it would run and changes nothing with --dry-run', () => {
    const run = image(['--registry', 'registry.example.com:5000/team', '--push', '--overlay', 'prod', '--dry-run']);
    expect(run.status).toBe(0);
    const ref = `registry.example.com:5000/team/drover:${VERSION}`;
    expect(run.out.split('\n').filter(Boolean)).toEqual([
      `image: docker build -f docker/Dockerfile --build-arg VERSION=${VERSION} -t ${ref} .`,
      `image: docker push ${ref}`,
      `image: would point k8s/overlays/prod/kustomization.yaml at ${ref}`,
    ]);
    expect(renderedImages(join(ROOT, 'k8s', 'overlays', 'prod'))).toEqual(Array(3).fill(`drover:${VERSION}`));
  });

  it('refuses arguments it cannot use, saying why, with exit code 2', () => {
    const cases: [string[], string][] = [
      [['--registry', 'https://registry.example.com/team'], 'without the scheme (registry.example.com/team)'],
      [['--registry', 'Registry.Example.com/Team'], 'not a registry path'],
      [['--registry', 'r.example/x', '--tag', 'v1/2'], '--tag v1/2: a tag is'],
      [['--push'], '--push needs --registry'],
      [['--overlay', 'staging'], '--overlay staging: no kustomization.yaml'],
      [['--regsitry', 'r.example/x'], "Unknown option '--regsitry'"],
    ];
    for (const [args, message] of cases) {
      const run = image(args);
      expect({ args, status: run.status, said: run.out.includes(message) }).toEqual({ args, status: 2, said: true });
      expect(run.out).toContain('usage: npm run image --');
    }
  });

  it('stops with one clear error when docker is not installed, before touching an overlay', () => {
    const dir = k8sCopy();
    try {
      const prod = join(dir, 'k8s', 'overlays', 'prod');
      const before = readFileSync(join(prod, 'kustomization.yaml'), 'utf8');
      // A PATH with node and nothing else: no docker.
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      symlinkSync(process.execPath, join(bin, 'node'));
      const run = image(['--registry', 'r.example/x', '--overlay', prod], { PATH: bin });
      expect(run.status).toBe(1);
      expect(run.out).toMatch(/^image: docker is not installed here \(no `docker` on PATH\)/);
      expect(run.out).toContain('--no-build --overlay');
      expect(readFileSync(join(prod, 'kustomization.yaml'), 'utf8')).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
