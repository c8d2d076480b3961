/**
 * Lints docker/Dockerfile (dockerfile-utils' validator with every check an error, then the house
 * rules of dockerfile-rules.ts) and .dockerignore. Every rule is also fed a Dockerfile broken on
 * purpose, so a rule that stopped firing fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import dockerignore from '@balena/dockerignore';
import { DockerfileParser } from 'dockerfile-ast';
import { houseRuleProblems, validatorProblems } from './dockerfile-rules';

const ROOT = join(__dirname, '..', '..');
const DOCKERFILE = readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8');

function edit(from: string, to: string): string {
  expect(DOCKERFILE).toContain(from);
  return DOCKERFILE.replace(from, to);
}

describe('docker/Dockerfile', () => {
  it('passes dockerfile-utils with every check an error', () => {
    expect(validatorProblems(DOCKERFILE)).toEqual([]);
  });

  it('passes the house rules', () => {
    expect(houseRuleProblems(DOCKERFILE)).toEqual([]);
  });

  it('reports its Node.js line once that line has ended', () => {
    expect(houseRuleProblems(DOCKERFILE, Date.parse('2028-06-01T00:00:00Z')).join('\n')).toMatch(
      /Node.js 24 reached end of life on 2028-04-30/,
    );
  });

  it.each([
    ['an invalid port', 'EXPOSE 3000 3001 3002', 'EXPOSE 3000 3001 web', /Invalid containerPort: web/],
    ['a lower-case instruction', 'WORKDIR /app', 'workdir /app', /uppercase/],
    ['a relative WORKDIR', 'WORKDIR /app', 'WORKDIR app', /absolute/i],
    ['a second CMD', 'CMD ["dist/apps/standalone/main.js"]', 'CMD ["a"]\nCMD ["b"]', /CMD/],
  ])('dockerfile-utils reports %s', (_, from, to, message) => {
    expect(validatorProblems(edit(from, to)).join('\n')).toMatch(message);
  });

  it.each([
    ['a named USER', 'USER 10001:10001', 'USER drover', /not a numeric non-root uid/],
    ['no USER (root)', 'USER 10001:10001\n', '', /\(none: root\)/],
    ['USER 0', 'USER 10001:10001', 'USER 0:0', /not a numeric non-root uid/],
    ['no init', '["/usr/bin/tini", "--", "node"]', '["node"]', /does not start an init/],
    [
      'npm at run time',
      '["/usr/bin/tini", "--", "node"]',
      '["/usr/bin/tini", "--", "npm", "start"]',
      /package manager/,
    ],
    [
      'a shell-form CMD',
      'CMD ["dist/apps/standalone/main.js"]',
      'CMD node dist/apps/standalone/main.js',
      /exec \(JSON\) form/,
    ],
    [
      'a CMD that is not an app path',
      '["dist/apps/standalone/main.js"]',
      '["dist/apps/standalone/main.js", "x"]',
      /not one app path/,
    ],
    ['npm install', 'npm ci --omit=dev', 'npm install --omit=dev', /use npm ci/],
    ['recommends installed', 'install -y --no-install-recommends tini', 'install -y tini', /DL3015/],
    ['apt lists kept', ' && rm -rf /var/lib/apt/lists/* \\\n', ' \\\n', /DL3009/],
    ['no NODE_ENV', 'ENV NODE_ENV=production\n', '', /NODE_ENV=production/],
    [
      'sources in the runtime stage',
      'COPY package.json ./\n',
      'COPY package.json ./\nCOPY libs ./libs\n',
      /copies libs from the context/,
    ],
    ['a secret', 'ARG VERSION=0.1.0', 'ARG API_TOKEN=abc', /looks like a secret/],
    ['ADD', 'COPY package.json ./\n', 'ADD package.json ./\n', /DL3020/],
    ['a latest base', 'ARG NODE_IMAGE=node:24-bookworm-slim', 'ARG NODE_IMAGE=node:latest', /is latest/],
    [
      'an end-of-life Node.js line',
      'ARG NODE_IMAGE=node:24-bookworm-slim',
      'ARG NODE_IMAGE=node:20-bookworm-slim',
      /Node.js 20 reached end of life on 2026-04-30/,
    ],
    ['app-owned files', 'COPY --from=build /src/dist', 'COPY --from=build --chown=10001:10001 /src/dist', /root-owned/],
    ['a missing port', 'EXPOSE 3000 3001 3002', 'EXPOSE 3000 3001', /EXPOSE 3002/],
    ['a missing OCI label', 'org.opencontainers.image.licenses', 'org.example.licenses', /image.licenses/],
  ])('the house rules report %s', (_, from, to, message) => {
    expect(houseRuleProblems(edit(from, to)).join('\n')).toMatch(message);
  });
});

describe('.dockerignore', () => {
  const ig = dockerignore({ ignorecase: false }).add(readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n'));

  it('keeps local state, build output, VCS data, tests and stray secrets out of the build context', () => {
    for (const path of [
      'node_modules/bullmq/package.json',
      'dist/apps/api/main.js',
      '.git/HEAD',
      '.drover/redis.pid',
      'coverage/lcov.info',
      'test/deploy/image.e2e-spec.ts',
      'libs/core/src/plan.spec.ts',
      'apps/api/src/x.e2e-spec.ts',
      'npm-debug.log',
      'docker/compose.yaml',
      'tokens.yaml',
      '.env',
    ]) {
      expect([path, ig.ignores(path)]).toEqual([path, true]);
    }
  });

  it('lets in everything the Dockerfile copies from the context', () => {
    const copies = DockerfileParser.parse(DOCKERFILE)
      .getCOPYs()
      .filter((c) => !c.getFromFlag())
      .flatMap((c) =>
        c
          .getArguments()
          .slice(0, -1)
          .map((a) => a.getValue()),
      );
    expect(copies).toEqual(expect.arrayContaining(['package-lock.json', 'apps', 'libs', 'package.json']));
    for (const path of copies) expect([path, ig.ignores(path)]).toEqual([path, false]);
    expect(ig.ignores('libs/redis/src/lua/claimSlot-4.lua')).toBe(false);
  });
});
