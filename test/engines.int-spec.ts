import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * package.json `engines.node` is the Node.js range the project admits, and it may admit no version a
 * dependency refuses: on such a version `npm ci` prints EBADENGINE warnings and the tool that asked
 * for a newer Node (eslint, kubernetes-models, vite…) may break. The image and the docs name a line
 * inside it. Ranges are compared with semver, the library npm decides EBADENGINE with (it is in the
 * tree through jest, eslint and npm's other users; no types ship with it, hence the shape below).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const semver = require('semver') as {
  subset(sub: string, dom: string): boolean;
  satisfies(version: string, range: string): boolean;
};

const ROOT = join(__dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
type Engines = { engines?: { node?: string }; optional?: boolean };
const pkg = JSON.parse(read('package.json')) as Engines;
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, Engines> };
const ours = pkg.engines!.node!;

/** The packages of the lockfile whose engines.node admits less than `range` does. */
function refusing(range: string): string[] {
  return Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.engines?.node && !semver.subset(range, p.engines.node))
    .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')} wants ${p.engines!.node}`);
}

describe('package.json engines', () => {
  it('admits only Node.js versions every installed package accepts (no EBADENGINE on npm ci)', () => {
    expect(refusing(ours)).toEqual([]);
    expect(lock.packages['']!.engines).toEqual(pkg.engines);
  });

  it('would catch a floor below what the dev dependencies need', () => {
    // The old ">=20" admitted Node.js 20, which kubernetes-models (">=22") and eslint refuse.
    expect(refusing('>=20')).toEqual(expect.arrayContaining(['kubernetes-models wants >=22']));
  });

  it('admits the Node.js line the image runs', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read('docker/Dockerfile'))![1]!;
    expect(semver.satisfies(`${image}.0.0`, ours)).toBe(true);
  });
});
