/**
 * docker/compose.yaml, offline (no Docker engine here or in CI): dclint validates it against the
 * Compose Specification schema and its lint rules; the rest checks what the stack promises — the
 * image's command picks each app, env names the apps know, healthchecks, Redis durability,
 * loopback-only ports, a drain window before SIGKILL, a tokens file the api accepts, and a
 * Prometheus config (promtool) that scrapes every app service. compose.e2e-spec.ts runs the services.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { envSchema, loadApiTokensFile } from '@drover/config';
import {
  COMPOSE_DIR,
  COMPOSE_FILE,
  ROOT,
  appOf,
  appServices,
  bindMounts,
  defaultPort,
  loadCompose,
  runTokensInit,
  withDefaults,
} from './compose-file';

const compose = loadCompose();
const apps = appServices(compose);
const mountOf = (service: string, target: string) => {
  const m = bindMounts(compose.services[service]!).find((b) => b.target === target);
  if (!m) throw new Error(`${service} mounts nothing at ${target}`);
  return m;
};

// Ordering rules are style; every other dclint rule, and the schema, must pass with no warning.
const DCLINT_OFF = ['services-alphabetical-order', 'service-keys-order', 'top-level-properties-order'];
function dclint(file: string): { errorCount: number; warningCount: number; messages: { message: string }[] } {
  const args = [file, '-f', 'json', '--no-color', ...DCLINT_OFF.flatMap((r) => ['--disable-rule', r])];
  const res = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'dclint', 'bin', 'dclint.cjs'), ...args], {
    encoding: 'utf8',
  });
  const [report] = JSON.parse(res.stdout) as {
    errorCount: number;
    warningCount: number;
    messages: { message: string }[];
  }[];
  return report!;
}

describe('docker/compose.yaml', () => {
  it('passes dclint (Compose Specification schema and lint rules) with no problem', () => {
    const report = dclint(COMPOSE_FILE);
    expect(report.messages.map((m) => m.message)).toEqual([]);
  });

  it('dclint fails a file the Compose Specification rejects', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-compose-'));
    try {
      const broken = join(dir, 'compose.yaml');
      writeFileSync(
        broken,
        readFileSync(COMPOSE_FILE, 'utf8').replace('    image: redis:7.4', '    imagex: redis:7.4'),
      );
      const report = dclint(broken);
      expect(report.errorCount).toBeGreaterThan(0);
      expect(report.messages.map((m) => m.message).join('\n')).toMatch(/must NOT have additional properties/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs Redis, two schedulers, two workers, the api, Prometheus and Grafana', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['api', 'grafana', 'prometheus', 'redis', 'scheduler-1', 'scheduler-2', 'tokens-init', 'worker'].sort(),
    );
    const count = (app: string) =>
      apps.filter(([, s]) => appOf(s) === app).reduce((n, [, s]) => n + (s.deploy?.replicas ?? 1), 0);
    expect({ scheduler: count('scheduler'), worker: count('worker'), api: count('api') }).toEqual({
      scheduler: 2,
      worker: 2,
      api: 1,
    });
  });

  it('starts every app by its command in the one image built from docker/Dockerfile', () => {
    expect(apps.length).toBe(4);
    for (const [name, svc] of apps) {
      expect([name, svc.build]).toEqual([name, { context: '..', dockerfile: 'docker/Dockerfile' }]);
      expect([name, withDefaults(svc.image ?? '')]).toEqual([name, 'drover:local']);
      const app = appOf(svc);
      expect([name, svc.command?.length, app && existsSync(join(ROOT, 'apps', app, 'src', 'main.ts'))]).toEqual([
        name,
        1,
        true,
      ]);
    }
  });

  it('sets only environment variables the apps know (README, Configuration), the same Redis and policy for all', () => {
    const known = new Set(Object.keys(envSchema.shape));
    for (const [name, svc] of apps) {
      const env = svc.environment ?? {};
      expect([name, Object.keys(env).filter((k) => !known.has(k))]).toEqual([name, []]);
      // Each app's own Redis user (docs/redis.md), its password from docker/.env.
      const role = appOf(svc)!;
      const password = `\${DROVER_REDIS_${role.toUpperCase()}_PASSWORD}`;
      expect([name, env.REDIS_URL, env.DROVER_CONFIG]).toEqual([
        name,
        `redis://${role}:${password}@redis:6379`,
        '/etc/drover/drover.yaml',
      ]);
      // The policy file is the repository's example, read-only.
      expect(mountOf(name, '/etc/drover/drover.yaml')).toEqual({
        source: join(ROOT, 'examples', 'drover.yaml'),
        target: '/etc/drover/drover.yaml',
        readOnly: true,
      });
      // Parsed like the apps parse it: no value the schema rejects.
      const interpolated = { ...env, REDIS_URL: env.REDIS_URL!.replace(password, 'secret') };
      expect([name, envSchema.safeParse(interpolated).success]).toEqual([name, true]);
    }
    // Instance ids name the processes in leader election and metrics: distinct where set.
    const ids = apps.map(([, s]) => s.environment?.DROVER_INSTANCE_ID).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('probes every long-running service, apps on /readyz at their own port, and starts apps only once Redis is healthy', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      if (svc.restart === 'no') continue; // a one-shot (tokens-init) has nothing to probe
      expect([name, svc.healthcheck?.test?.[0]]).toEqual([name, 'CMD']);
    }
    for (const [name, svc] of apps) {
      const test = svc.healthcheck!.test.join(' ');
      expect(test).toContain(`http://127.0.0.1:${defaultPort(appOf(svc)!)}/readyz`);
      // The image has node but no curl or wget.
      expect(svc.healthcheck!.test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
      expect([name, svc.depends_on?.redis]).toEqual([name, { condition: 'service_healthy' }]);
    }
  });

  it('keeps Redis durable (AOF every second) and never evicting, on a named volume, checked by redis-cli ping', () => {
    const redis = compose.services.redis!;
    expect(redis.image).toMatch(/^redis:7(\.|$)/);
    expect(redis.command!.slice(0, 2)).toEqual(['sh', '/etc/drover/redis/start.sh']);
    const cmd = redis.command!.join(' ');
    for (const flag of ['--appendonly yes', '--appendfsync everysec', '--maxmemory-policy noeviction']) {
      expect(cmd).toContain(flag);
    }
    expect(redis.volumes).toContain('redis-data:/data');
    expect(Object.keys(compose.volumes)).toContain('redis-data');
    expect(redis.healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('loads the Redis users of scripts/redis-acl.mjs, from passwords compose requires, no admin', () => {
    const redis = compose.services.redis!;
    const template = readFileSync(join(ROOT, 'docker', 'redis', 'users.acl.template'), 'utf8');
    const generated = spawnSync(process.execPath, [join(ROOT, 'scripts', 'redis-acl.mjs'), '--template'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(generated.stdout).toBe(template); // regenerate: node scripts/redis-acl.mjs --template > docker/redis/users.acl.template
    expect(mountOf('redis', '/etc/drover/redis')).toMatchObject({
      source: join(ROOT, 'docker', 'redis'),
      readOnly: true,
    });
    for (const role of ['SCHEDULER', 'WORKER', 'API', 'PRODUCER']) {
      expect(redis.environment![`DROVER_REDIS_${role}_PASSWORD`]).toMatch(
        new RegExp(`^\\$\\{DROVER_REDIS_${role}_PASSWORD:\\?`),
      );
    }
    expect(JSON.stringify(redis.environment)).not.toMatch(/ADMIN/);
  });

  it('publishes ports on loopback only, the api on 3000', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const p of svc.ports ?? [])
        expect([name, p]).toEqual([name, expect.stringMatching(/^127\.0\.0\.1:\d+:\d+$/)]);
    }
    expect(compose.services.api!.ports).toEqual(['127.0.0.1:3000:3000']);
    const published = Object.entries(compose.services).filter(([, s]) => s.ports?.length);
    expect(published.map(([n]) => n).sort()).toEqual(['api', 'grafana', 'prometheus']);
  });

  it('gives in-flight runs their drain window before Docker kills, and runs apps locked down', () => {
    const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)?.[1]);
    for (const [name, svc] of apps) {
      const grace = Number(svc.environment?.DROVER_SHUTDOWN_GRACE_MS ?? 30_000);
      expect([name, seconds(svc.stop_grace_period ?? '10s') * 1000 > grace]).toEqual([name, true]);
      expect([name, svc.read_only, svc.cap_drop]).toEqual([name, true, ['ALL']]);
    }
  });

  describe('api tokens', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'drover-tokens-init-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('publishes no fixed token: the api reads the tokens file tokens-init writes into a volume, after it ran', () => {
      expect(existsSync(join(COMPOSE_DIR, 'dev-tokens.yaml'))).toBe(false);
      const api = compose.services.api!;
      expect(api.environment!.DROVER_API_TOKENS_FILE).toBe('/etc/drover/tokens/tokens.yaml');
      expect(api.volumes).toContain('api-tokens:/etc/drover/tokens:ro');
      expect(api.depends_on).toEqual({
        redis: { condition: 'service_healthy' },
        'tokens-init': { condition: 'service_completed_successfully' },
      });
      const init = compose.services['tokens-init']!;
      expect(init.volumes).toEqual(['./tokens-init.sh:/usr/local/bin/drover-tokens-init.sh:ro', 'api-tokens:/tokens']);
      expect(mountOf('tokens-init', '/usr/local/bin/drover-tokens-init.sh').source).toBe(
        join(COMPOSE_DIR, 'tokens-init.sh'),
      );
      expect([init.entrypoint, init.command]).toEqual([['sh', '/usr/local/bin/drover-tokens-init.sh'], ['init']]);
      expect([init.restart, init.network_mode, init.read_only, init.cap_drop]).toEqual(['no', 'none', true, ['ALL']]);
      expect(Object.keys(compose.volumes)).toContain('api-tokens');
      // No token is written down anywhere a reader (or a web page's author) could copy it from.
      for (const doc of ['README.md', 'docs/deploy.md']) {
        expect([doc, readFileSync(join(ROOT, doc), 'utf8')]).not.toEqual([
          doc,
          expect.stringMatching(/drover-compose-dev-only/),
        ]);
      }
    });

    it('tokens-init (run as a process) makes a random admin token once, prints it, and keeps only its hash', () => {
      const first = runTokensInit(dir, compose.services['tokens-init']!.command);
      expect(first.code).toBe(0);
      expect(first.token).toMatch(/^[0-9a-f]{64}$/);
      const file = join(dir, 'tokens.yaml');
      const sha = createHash('sha256').update(first.token!).digest('hex');
      expect(loadApiTokensFile(file)).toEqual([{ name: 'compose-admin', role: 'admin', sha256: sha }]);
      expect(readFileSync(file, 'utf8')).not.toContain(first.token);
      // A restart of the stack keeps the file and prints no token.
      const again = runTokensInit(dir, ['init']);
      expect([again.code, again.token]).toEqual([0, undefined]);
      expect(loadApiTokensFile(file)).toEqual([{ name: 'compose-admin', role: 'admin', sha256: sha }]);
      // Another stack gets another token.
      const other = mkdtempSync(join(tmpdir(), 'drover-tokens-init-'));
      try {
        expect(runTokensInit(other).token).not.toBe(first.token);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    });

    it('tokens-init adds tokens, refuses bad names, roles and duplicates, and resets', () => {
      const file = join(dir, 'tokens.yaml');
      expect(runTokensInit(dir, ['add', 'ci', 'operator']).code).toBe(2); // nothing to add to yet
      const admin = runTokensInit(dir).token!;
      const ci = runTokensInit(dir, ['add', 'ci', 'operator']);
      expect(ci.code).toBe(0);
      const hashOf = (t: string) => createHash('sha256').update(t).digest('hex');
      expect(loadApiTokensFile(file)).toEqual([
        { name: 'compose-admin', role: 'admin', sha256: hashOf(admin) },
        { name: 'ci', role: 'operator', sha256: hashOf(ci.token!) },
      ]);
      const before = readFileSync(file, 'utf8');
      for (const args of [
        ['add', 'ci', 'viewer'],
        ['add', 'x y', 'viewer'],
        ['add', '@alice', 'viewer'],
        ['add', 'a:', 'viewer'],
        ['add', 'z', 'root'],
        ['frobnicate'],
      ]) {
        const res = runTokensInit(dir, args);
        expect([args, res.code, res.token]).toEqual([args, 2, undefined]);
      }
      expect(readFileSync(file, 'utf8')).toBe(before);
      const reset = runTokensInit(dir, ['reset']);
      expect(loadApiTokensFile(file)).toEqual([{ name: 'compose-admin', role: 'admin', sha256: hashOf(reset.token!) }]);
    });
  });

  describe('Prometheus', () => {
    const mount = mountOf('prometheus', '/etc/prometheus');
    const configFile = join(mount.source, 'prometheus.yml');
    const config = parse(readFileSync(configFile, 'utf8')) as {
      rule_files: string[];
      scrape_configs: {
        job_name: string;
        static_configs?: { targets: string[] }[];
        dns_sd_configs?: { names: string[]; type: string; port: number }[];
      }[];
    };

    it('mounts observability/prometheus read-only, whose config promtool accepts with its rule file', () => {
      expect(mount).toMatchObject({ source: join(ROOT, 'observability', 'prometheus'), readOnly: true });
      expect(compose.services.prometheus!.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
      const res = spawnSync('promtool', ['check', 'config', configFile], { encoding: 'utf8' });
      expect(res.error).toBeUndefined(); // promtool is on PATH (.ci/run installs the prometheus package)
      expect(`${res.stdout}${res.stderr}`).toMatch(/SUCCESS: 1 rule files found/);
      expect(res.status).toBe(0);
      expect(config.rule_files).toEqual(['drover-rules.yml']);
    });

    it('scrapes every app service on its port, the scaled workers through DNS', () => {
      const scraped = new Set<string>();
      for (const job of config.scrape_configs) {
        for (const sc of job.static_configs ?? []) for (const t of sc.targets) scraped.add(`${job.job_name} ${t}`);
        for (const dns of job.dns_sd_configs ?? []) {
          expect(dns.type).toBe('A');
          for (const n of dns.names) scraped.add(`${job.job_name} ${n}:${dns.port}`);
        }
      }
      for (const [name, svc] of apps) {
        const app = appOf(svc)!;
        // Job names are the app names: the dashboards select processes by job.
        expect([name, scraped.has(`${app} ${name}:${defaultPort(app)}`)]).toEqual([name, true]);
      }
      // Replicas share a DNS name; a static target would reach only one of them.
      const worker = config.scrape_configs.find((j) => j.job_name === 'worker')!;
      expect(worker.dns_sd_configs?.[0]?.names).toEqual(['worker']);
    });
  });

  it('provisions Grafana with the Prometheus service as data source and the dashboards of observability/', () => {
    const provisioning = mountOf('grafana', '/etc/grafana/provisioning');
    expect(provisioning.source).toBe(join(ROOT, 'observability', 'grafana', 'provisioning'));
    const ds = parse(readFileSync(join(provisioning.source, 'datasources', 'prometheus.yml'), 'utf8')) as {
      datasources: { url: string }[];
    };
    expect(ds.datasources[0]!.url).toBe('http://prometheus:9090');
    const dashboards = parse(readFileSync(join(provisioning.source, 'dashboards', 'drover.yml'), 'utf8')) as {
      providers: { options: { path: string } }[];
    };
    const target = dashboards.providers[0]!.options.path;
    expect(mountOf('grafana', target).source).toBe(join(ROOT, 'observability', 'dashboards'));
    expect(existsSync(join(ROOT, 'observability', 'dashboards', 'drover-overview.json'))).toBe(true);
  });

  it('mounts only files that exist', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const m of bindMounts(svc)) expect([name, m.source, existsSync(m.source)]).toEqual([name, m.source, true]);
    }
  });
});
