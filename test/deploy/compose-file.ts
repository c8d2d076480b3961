/** docker/compose.yaml as data, for the compose tests: merge keys resolved, paths made absolute. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

export const ROOT = join(__dirname, '..', '..');
export const COMPOSE_DIR = join(ROOT, 'docker');
export const COMPOSE_FILE = join(COMPOSE_DIR, 'compose.yaml');

export interface Healthcheck {
  test: string[];
  interval?: string;
  timeout?: string;
  retries?: number;
  start_period?: string;
}

export interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: Healthcheck;
  deploy?: { replicas?: number };
  stop_grace_period?: string;
  read_only?: boolean;
  cap_drop?: string[];
  entrypoint?: string[];
  network_mode?: string;
  restart?: string;
}

export interface Compose {
  name: string;
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

export function loadCompose(text = readFileSync(COMPOSE_FILE, 'utf8')): Compose {
  return parse(text, { merge: true }) as Compose;
}

/** `${VAR:-default}` as compose resolves it with VAR unset. */
export const withDefaults = (s: string): string => s.replace(/\$\{\w+:-([^}]*)\}/g, '$1');

/** A bind mount's host path (relative to the compose file, defaults applied), its target and mode. */
export function bindMounts(svc: Service): { source: string; target: string; readOnly: boolean }[] {
  return (svc.volumes ?? [])
    .map(withDefaults)
    .filter((v) => v.startsWith('.') || v.startsWith('/'))
    .map((v) => {
      const [source = '', target = '', mode] = v.split(':');
      return { source: resolve(COMPOSE_DIR, source), target, readOnly: mode === 'ro' };
    });
}

/** Services that run the Drover image: built from docker/Dockerfile, the app chosen by the command. */
export function appServices(compose: Compose): [string, Service][] {
  return Object.entries(compose.services).filter(([, s]) => s.build?.dockerfile === 'docker/Dockerfile');
}

/** The app a command runs: `dist/apps/<app>/main.js` → `<app>`. */
export function appOf(svc: Service): string | undefined {
  return /^dist\/apps\/([a-z]+)\/main\.js$/.exec(svc.command?.[0] ?? '')?.[1];
}

/** The app's default port, as its main.ts declares it (PORT overrides; compose does not set it). */
export function defaultPort(app: string): number {
  const main = readFileSync(join(ROOT, 'apps', app, 'src', 'main.ts'), 'utf8');
  const m = /defaultPort: (\d+)/.exec(main);
  if (!m) throw new Error(`apps/${app}/src/main.ts declares no defaultPort`);
  return Number(m[1]);
}

/** docker/tokens-init.sh: the compose stack's one-shot that makes the api's tokens (see compose.yaml). */
export const TOKENS_INIT = join(COMPOSE_DIR, 'tokens-init.sh');

/**
 * Runs docker/tokens-init.sh as the stack runs it (sh, its compose command or `args`), with its
 * volume at `dir`; answers the exit code, the output and the token it printed, if any.
 */
export function runTokensInit(dir: string, args: string[] = []): { code: number; output: string; token?: string } {
  const res = spawnSync('sh', [TOKENS_INIT, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DROVER_TOKENS_DIR: dir },
    encoding: 'utf8',
  });
  const output = `${res.stdout}${res.stderr}`;
  return { code: res.status ?? -1, output, token: /^ {2}([0-9a-f]{64})$/m.exec(res.stdout)?.[1] };
}
