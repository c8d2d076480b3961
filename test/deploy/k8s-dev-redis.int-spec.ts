import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  APPS,
  ROOT,
  appDeployment,
  envOf,
  render,
  selects,
  volumeForPath,
  type EnvVar,
  type K8sObject,
  type Workload,
} from './support/k8s';

/**
 * The dev overlay's in-cluster Redis, rendered offline with `kubectl kustomize` like
 * k8s-manifests.int-spec.ts: its persistence, the Redis users the apps dial as, and its probes.
 */
describe('overlays/dev: the in-cluster Redis', () => {
  const objects = render('dev');
  const redis = objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'redis') as Workload;

  it('keeps an AOF fsynced every second, never evicts, and stores it on a PVC', () => {
    const c = redis.spec.template.spec.containers[0]!;
    const args = (c.args ?? []).join(' ');
    expect(args).toContain('--appendonly yes');
    expect(args).toContain('--appendfsync everysec');
    expect(args).toContain('--maxmemory-policy noeviction');
    // It writes only there (the ACL file it reads is mounted read-only).
    expect((c.volumeMounts ?? []).filter((m) => !m.readOnly)).toEqual([{ name: 'data', mountPath: '/data' }]);
    expect(
      (redis.spec as unknown as { volumeClaimTemplates: { metadata: { name: string } }[] }).volumeClaimTemplates[0]!
        .metadata.name,
    ).toBe('data');
  });

  const pod = redis.spec.template.spec;
  const server = pod.containers[0]!;
  const secretRef = (e?: EnvVar) => e?.valueFrom?.secretKeyRef;

  it('is what the apps dial, each as its own Redis user with its password from drover-redis-users', () => {
    const svc = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'redis') as K8sObject & {
      spec: { clusterIP: string; selector: Record<string, string>; ports: { port: number }[] };
    };
    expect(svc.spec.clusterIP).toBe('None');
    expect(selects({ matchLabels: svc.spec.selector }, redis.spec.template.metadata.labels)).toBe(true);
    for (const app of APPS) {
      const env = appDeployment(objects, app).spec.template.spec.containers[0]!.env ?? [];
      const variable = `DROVER_REDIS_${app.toUpperCase()}_PASSWORD`;
      const url = env.findIndex((e) => e.name === 'REDIS_URL');
      expect({ app, url: env[url] }).toEqual({
        app,
        url: { name: 'REDIS_URL', value: `redis://${app}:$(${variable})@redis:${svc.spec.ports[0]!.port}` },
      });
      // $(VAR) expands only from a variable defined before it; the password is its own role's.
      const password = env.findIndex((e) => e.name === variable);
      expect({ app, before: password >= 0 && password < url }).toEqual({ app, before: true });
      expect(secretRef(env[password])).toEqual({ name: 'drover-redis-users', key: variable });
      // No app gets another role's password.
      const others = env.filter((e) => secretRef(e)?.name === 'drover-redis-users' && e.name !== variable);
      expect({ app, others }).toEqual({ app, others: [] });
    }
  });

  it('loads the ACL file its init container renders from the generated template and the Secret', () => {
    // The committed template is the generator's output (regenerate: node scripts/redis-acl.mjs --template >
    // k8s/overlays/dev/redis-users.acl.template), with the apps' key prefix (DROVER_PREFIX unset: drover).
    const generated = spawnSync(process.execPath, [join(ROOT, 'scripts', 'redis-acl.mjs'), '--template'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(generated.status).toBe(0);
    for (const app of APPS) {
      expect(envOf(appDeployment(objects, app).spec.template.spec.containers[0]!, 'DROVER_PREFIX')).toBeUndefined();
    }
    const init = pod.initContainers ?? [];
    expect(init.map((c) => c.name)).toEqual(['acl']);
    const acl = init[0]!;
    const template = volumeForPath(pod, acl, envOf(acl, 'ACL_TEMPLATE')!.value!)!;
    expect(template.readOnly).toBe(true);
    const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === template.volume.configMap?.name);
    expect(cm?.metadata.name).toMatch(/^redis-users-/); // generated: a template change rolls the pod
    expect(cm!.data![template.relative]).toBe(generated.stdout);
    // The default user, which the probe uses, may PING and nothing else.
    expect(generated.stdout.split('\n')[0]).toBe('user default on nopass resetkeys resetchannels -@all +ping');

    // Rendered into an emptyDir the server mounts read-only and loads with --aclfile.
    const file = envOf(acl, 'ACL_FILE')!.value!;
    const written = volumeForPath(pod, acl, file)!;
    expect(written.readOnly).toBe(false);
    expect(written.volume.emptyDir).toBeDefined();
    const args = server.args ?? [];
    const loaded = args[args.indexOf('--aclfile') + 1]!;
    expect(args.indexOf('--aclfile')).toBeGreaterThanOrEqual(0);
    const read = volumeForPath(pod, server, loaded)!;
    expect({ volume: read.volume.name, relative: read.relative, readOnly: read.readOnly }).toEqual({
      volume: written.volume.name,
      relative: written.relative,
      readOnly: true,
    });
    // Every role's password comes from the Secret into the init container alone, never the server.
    for (const role of ['SCHEDULER', 'WORKER', 'API', 'PRODUCER']) {
      const variable = `DROVER_REDIS_${role}_PASSWORD`;
      expect(secretRef(envOf(acl, variable))).toEqual({ name: 'drover-redis-users', key: variable });
    }
    expect(server.env ?? []).toEqual([]);
    expect(server.envFrom).toBeUndefined();
  });

  it('is probed as the default user, which needs no password: TCP for liveness, redis-cli ping for readiness', () => {
    expect(server.livenessProbe?.tcpSocket).toEqual({ port: 'redis' });
    expect(server.startupProbe?.tcpSocket).toEqual({ port: 'redis' });
    expect(server.readinessProbe?.exec?.command).toEqual(['redis-cli', 'ping']);
  });
});
