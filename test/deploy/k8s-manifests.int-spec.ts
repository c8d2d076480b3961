import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseBundleText } from '@drover/config';
import {
  APPS,
  OVERLAYS,
  allContainers,
  ROOT,
  appDeployment,
  envOf,
  isWorkload,
  render,
  resolvePort,
  selects,
  volumeForPath,
  type K8sObject,
  type LabelSelector,
  type Overlay,
} from './support/k8s';

/**
 * The kustomize overlays, rendered offline with `kubectl kustomize` (CI installs kubectl through
 * scripts/k8s/install-kubectl.sh): every object validated against the Kubernetes, KEDA and
 * prometheus-operator schemas (scripts/k8s/validate-manifests.mjs), then the rules an SRE reviews by
 * hand checked on what is rendered, not on the source files.
 */
const VALIDATE = join(ROOT, 'scripts', 'k8s', 'validate-manifests.mjs');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function validate(...sources: string[]): { status: number | null; out: string } {
  const res = spawnSync(process.execPath, [VALIDATE, ...sources], { cwd: ROOT, encoding: 'utf8' });
  return { status: res.status, out: `${res.stdout}${res.stderr}` };
}

const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, render(o)])) as Record<Overlay, K8sObject[]>;
const workloads = (overlay: Overlay) => rendered[overlay].filter(isWorkload);
const podsOf = (overlay: Overlay) =>
  workloads(overlay).map((w) => ({ name: `${w.kind}/${w.metadata.name}`, w, pod: w.spec.template.spec }));
const ofKind = <T = K8sObject>(overlay: Overlay, kind: string) =>
  rendered[overlay].filter((o) => o.kind === kind) as T[];

describe('kustomize overlays validate against the Kubernetes, KEDA and prometheus-operator schemas', () => {
  it('every object of both overlays passes its schema, unknown fields included', () => {
    const { status, out } = validate(...OVERLAYS.map((o) => join(ROOT, 'k8s', 'overlays', o)));
    expect(out).toMatch(/^valid: \d+ objects/m);
    expect(status).toBe(0);
    // The prod overlay brings the CRD kinds; a renamed one would have no schema and fail above.
    expect(out).toContain('keda.sh/v1alpha1 ScaledObject');
    expect(out).toContain('monitoring.coreos.com/v1 ServiceMonitor');
    expect(out).toContain('monitoring.coreos.com/v1 PrometheusRule');
  }, 60_000);

  it('the validator refuses a misspelt field, a wrong type, a bad duration and an unknown kind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-k8s-bad-'));
    try {
      const bad = structuredClone(rendered.prod);
      const scheduler = appDeployment(bad, 'scheduler');
      const container = scheduler.spec.template.spec.containers[0]! as unknown as Record<string, unknown>;
      container.readinessprobe = container.readinessProbe; // deep in a pod template
      (scheduler.spec as Record<string, unknown>).replicas = 'two';
      const so = bad.find((o) => o.kind === 'ScaledObject')!;
      (so.spec as Record<string, unknown>).maxReplicas = 3; // KEDA calls it maxReplicaCount
      const monitor = bad.find((o) => o.kind === 'ServiceMonitor')!;
      (monitor.spec as { endpoints: { interval: string }[] }).endpoints[0]!.interval = '15 seconds';
      bad.push({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, bad.map((o) => stringify(o)).join('---\n'));
      const { status, out } = validate(file);
      expect(status).toBe(1);
      expect(out).toMatch(/Deployment\/drover-scheduler: .*'"readinessprobe"' does not exist in type 'IContainer'/);
      expect(out).toMatch(/Deployment\/drover-scheduler: data\/spec\/replicas must be integer/);
      expect(out).toMatch(/ScaledObject\/drover-worker: .*'"maxReplicas"' does not exist in type 'IScaledObjectSpec'/);
      expect(out).toMatch(/ServiceMonitor\/drover: data\/spec\/endpoints\/0\/interval must match pattern/);
      expect(out).toMatch(/Widget\/w: no schema for example.com\/v1 Widget/);
      expect(out).toMatch(/^INVALID: /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.each(OVERLAYS)('overlays/%s renders a deployment an SRE would accept', (overlay) => {
  const objects = rendered[overlay];
  const namespace = overlay === 'dev' ? 'drover-dev' : 'drover';

  it('puts every namespaced object in its namespace, which enforces Pod Security "restricted"', () => {
    const ns = objects.find((o) => o.kind === 'Namespace')!;
    expect(ns.metadata.name).toBe(namespace);
    expect(ns.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const elsewhere = objects.filter((o) => o.kind !== 'Namespace' && o.metadata.namespace !== namespace);
    expect(elsewhere.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([]);
  });

  it('runs every pod and container under the restricted Pod Security Standard with a read-only root', () => {
    for (const { name, pod } of podsOf(overlay)) {
      expect({ name, pod: pod.securityContext }).toMatchObject({
        name,
        pod: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      });
      expect({ name, automount: pod.automountServiceAccountToken, hostNetwork: pod.hostNetwork }).toEqual({
        name,
        automount: false,
        hostNetwork: undefined,
      });
      for (const c of allContainers(pod)) {
        const sc = c.securityContext ?? {};
        expect({ name, container: c.name, sc }).toMatchObject({
          name,
          container: c.name,
          sc: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          },
        });
        expect(sc.capabilities?.add).toBeUndefined();
        expect(sc.privileged).not.toBe(true);
        expect(Number(sc.runAsUser ?? pod.securityContext?.runAsUser)).toBeGreaterThan(0);
      }
    }
  });

  it('gives every container CPU and memory requests and limits', () => {
    for (const { name, pod } of podsOf(overlay)) {
      for (const c of allContainers(pod)) {
        expect({ name, requests: Object.keys(c.resources?.requests ?? {}).sort() }).toEqual({
          name,
          requests: ['cpu', 'memory'],
        });
        expect({ name, limits: Object.keys(c.resources?.limits ?? {}).sort() }).toEqual({
          name,
          limits: ['cpu', 'memory'],
        });
      }
    }
  });

  it('pins every image to a version or a digest', () => {
    for (const { name, pod } of podsOf(overlay)) {
      for (const c of allContainers(pod)) {
        expect({ name, image: c.image }).toEqual({
          name,
          image: expect.stringMatching(/(:v?\d+\.\d+\.\d+[\w.-]*(@sha256:[0-9a-f]{64})?|@sha256:[0-9a-f]{64})$/),
        });
      }
    }
  });

  describe.each(APPS)('the %s container', (app) => {
    const deployment = appDeployment(objects, app);
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0]!;
    const grace = Number(envOf(container, 'DROVER_SHUTDOWN_GRACE_MS')?.value);

    it('runs its app from the one image and listens on the port named http', () => {
      expect(pod.containers).toHaveLength(1);
      // The image `npm run image` builds without --registry (docs/deploy.md); a version bump moves the overlays too.
      expect(container.image).toBe(`drover:${VERSION}`);
      expect(container.command).toBeUndefined(); // the image's entrypoint (tini -- node) runs the args
      expect(container.args).toEqual([`dist/apps/${app}/main.js`]);
      // PORT is set explicitly: the probes and Services reach the app where the app listens.
      expect(Number(envOf(container, 'PORT')?.value)).toBe(resolvePort(container, 'http'));
    });

    it('is probed for liveness on /healthz, readiness on /readyz and start-up on /healthz, at port http', () => {
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    });

    it('has a grace period above its preStop pause plus DROVER_SHUTDOWN_GRACE_MS', () => {
      expect(grace).toBeGreaterThan(0);
      const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(preStop + grace / 1000);
    });

    it('names itself after its pod, logs JSON and reads the policy file from the ConfigMap, read-only', () => {
      expect(envOf(container, 'DROVER_INSTANCE_ID')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
      expect(envOf(container, 'LOG_FORMAT')?.value).toBe('json');
      const path = envOf(container, 'DROVER_CONFIG')!.value!;
      const where = volumeForPath(pod, container, path)!;
      expect(where.readOnly).toBe(true);
      const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === where.volume.configMap?.name);
      expect(cm?.metadata.name).toMatch(/^drover-policy-/); // generated: a policy change rolls the pods
      // The file the pod sees is a policy Drover accepts.
      expect(parseBundleText(cm!.data![where.relative]!, path).queues.length).toBeGreaterThan(0);
    });

    it('writes only to an emptyDir at /tmp', () => {
      const writable = (container.volumeMounts ?? []).filter((m) => !m.readOnly);
      expect(writable.map((m) => m.mountPath)).toEqual(['/tmp']);
      expect(pod.volumes?.find((v) => v.name === writable[0]!.name)?.emptyDir).toBeDefined();
    });

    it('is covered by a PodDisruptionBudget that lets drains evict unhealthy pods', () => {
      const pdbs = ofKind<K8sObject & { spec: Record<string, unknown> & { selector: LabelSelector } }>(
        overlay,
        'PodDisruptionBudget',
      ).filter((p) => selects(p.spec.selector, deployment.spec.template.metadata.labels));
      expect(pdbs).toHaveLength(1);
      expect(pdbs[0]!.spec.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
      if (app === 'scheduler') {
        expect(pdbs[0]!.spec.minAvailable).toBe(1);
        expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
      }
    });

    it('is scraped by the ServiceMonitor through a Service on port http', () => {
      const monitor = ofKind<
        K8sObject & { spec: { selector: LabelSelector; endpoints: { port: string; path: string }[] } }
      >(overlay, 'ServiceMonitor')[0]!;
      const services = ofKind<
        K8sObject & { spec: { selector: Record<string, string>; ports: { name: string; targetPort: string }[] } }
      >(overlay, 'Service').filter(
        (s) =>
          selects(monitor.spec.selector, s.metadata.labels ?? {}) &&
          selects({ matchLabels: s.spec.selector }, deployment.spec.template.metadata.labels),
      );
      expect(services).toHaveLength(1);
      const endpoint = monitor.spec.endpoints[0]!;
      expect(endpoint.path).toBe('/metrics');
      const port = services[0]!.spec.ports.find((p) => p.name === endpoint.port)!;
      expect(resolvePort(container, port.targetPort)).toBe(resolvePort(container, 'http'));
    });
  });

  it('references Secrets and never carries one: no Secret objects, no credentials in env values', () => {
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const { name, pod } of podsOf(overlay)) {
      for (const c of allContainers(pod)) {
        for (const [i, e] of (c.env ?? []).entries()) {
          // A URL with user info, or a variable named like a secret, must come from a secretKeyRef; a URL's
          // password may be $(VAR) of a variable defined before it from a secretKeyRef (Kubernetes expands it).
          if (e.value !== undefined) {
            const ref = /:\/\/[^:/@\s]*:\$\(([A-Za-z_][A-Za-z0-9_]*)\)@/.exec(e.value)?.[1];
            const fromSecret = (c.env ?? []).slice(0, i).some((d) => d.name === ref && d.valueFrom?.secretKeyRef);
            expect({ name, env: e.name, value: fromSecret ? '' : e.value }).not.toEqual({
              name,
              env: e.name,
              value: expect.stringMatching(/:\/\/[^/\s]*@|^[A-Za-z0-9+/]{32,}={0,2}$/),
            });
            expect({ name, env: e.name }).not.toEqual({ name, env: expect.stringMatching(/PASSWORD|SECRET|TOKEN$/) });
          }
        }
      }
    }
    const api = appDeployment(objects, 'api');
    const apiContainer = api.spec.template.spec.containers[0]!;
    const tokens = volumeForPath(
      api.spec.template.spec,
      apiContainer,
      envOf(apiContainer, 'DROVER_API_TOKENS_FILE')!.value!,
    )!;
    expect(tokens).toMatchObject({
      readOnly: true,
      volume: { secret: { secretName: 'drover-api-tokens', optional: false } },
    });
  });

  it('denies ingress to every pod unless a policy admits it; only the api is open to all', () => {
    type Policy = K8sObject & {
      spec: { podSelector: LabelSelector; policyTypes: string[]; ingress?: { from?: unknown[] }[] };
    };
    const policies = ofKind<Policy>(overlay, 'NetworkPolicy');
    const ingressFor = (labels: Record<string, string>) =>
      policies.filter((p) => p.spec.policyTypes.includes('Ingress') && selects(p.spec.podSelector, labels));
    for (const { name, w } of podsOf(overlay)) {
      const labels = w.spec.template.metadata.labels;
      expect({ name, selected: ingressFor(labels).length > 0 }).toEqual({ name, selected: true });
      const openToAll = ingressFor(labels).some((p) => (p.spec.ingress ?? []).some((r) => !r.from));
      expect({ name, openToAll }).toEqual({ name, openToAll: labels['app.kubernetes.io/component'] === 'api' });
    }
    // The default deny: an Ingress policy selecting every pod with no rule.
    expect(
      policies.some((p) => selects(p.spec.podSelector, {}) && !p.spec.podSelector.matchExpressions && !p.spec.ingress),
    ).toBe(true);
    // Prometheus may scrape every app.
    for (const app of APPS) {
      const labels = appDeployment(objects, app).spec.template.metadata.labels;
      expect(ingressFor(labels).some((p) => p.metadata.name === 'drover-allow-prometheus')).toBe(true);
    }
  });

  it('lets the scheduler and api reach Redis and DNS, and the worker reach out', () => {
    type Policy = K8sObject & {
      spec: { podSelector: LabelSelector; policyTypes: string[]; egress?: { ports?: { port: number | string }[] }[] };
    };
    const egress = ofKind<Policy>(overlay, 'NetworkPolicy').filter((p) => p.spec.policyTypes.includes('Egress'));
    for (const app of APPS) {
      const labels = appDeployment(objects, app).spec.template.metadata.labels;
      const rules = egress.filter((p) => selects(p.spec.podSelector, labels)).flatMap((p) => p.spec.egress ?? []);
      const ports = rules.flatMap((r) => (r.ports ?? []).map((p) => p.port));
      if (app === 'worker') expect(rules.some((r) => !r.ports && !('to' in r))).toBe(true);
      else expect(ports).toEqual(expect.arrayContaining([53, 6379]));
    }
  });
});

describe('overlays/prod: external Redis over TLS and KEDA', () => {
  const objects = rendered.prod;

  it('takes REDIS_URL from a Secret and the Redis CA from a mounted Secret, for every app', () => {
    for (const app of APPS) {
      const d = appDeployment(objects, app);
      const c = d.spec.template.spec.containers[0]!;
      expect(envOf(c, 'REDIS_URL')?.valueFrom).toEqual({ secretKeyRef: { name: 'drover-redis', key: 'url' } });
      const ca = volumeForPath(d.spec.template.spec, c, envOf(c, 'REDIS_TLS_CA_FILE')!.value!)!;
      expect(ca).toMatchObject({
        readOnly: true,
        relative: 'ca.crt',
        volume: { secret: { secretName: 'drover-redis-tls', optional: false } },
      });
    }
  });

  it('scales the worker Deployment with a ScaledObject whose query matches the namespace and the worker', () => {
    interface ScaledObject {
      metadata: { namespace: string };
      spec: {
        scaleTargetRef: { name: string };
        minReplicaCount: number;
        maxReplicaCount: number;
        fallback: { failureThreshold: number; replicas: number };
        advanced: {
          horizontalPodAutoscalerConfig: {
            behavior: {
              scaleDown: { stabilizationWindowSeconds: number; policies: unknown[] };
              scaleUp: { policies: unknown[] };
            };
          };
        };
        triggers: { type: string; metadata: Record<string, string> }[];
      };
    }
    const so = objects.find((o) => o.kind === 'ScaledObject') as unknown as ScaledObject;
    const worker = appDeployment(objects, 'worker');
    expect(so.spec.scaleTargetRef.name).toBe(worker.metadata.name);
    // The HPA owns the count: a replicas field would reset it on every apply.
    expect(worker.spec.replicas).toBeUndefined();
    expect(so.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    expect(so.spec.maxReplicaCount).toBeGreaterThan(so.spec.minReplicaCount);
    expect(so.spec.fallback.replicas).toBeGreaterThanOrEqual(so.spec.minReplicaCount);
    expect(so.spec.fallback.replicas).toBeLessThanOrEqual(so.spec.maxReplicaCount);
    const behavior = so.spec.advanced.horizontalPodAutoscalerConfig.behavior;
    expect(behavior.scaleDown.stabilizationWindowSeconds).toBeGreaterThanOrEqual(300);
    expect(behavior.scaleDown.policies.length).toBeGreaterThan(0);
    expect(behavior.scaleUp.policies.length).toBeGreaterThan(0);
    const [trigger] = so.spec.triggers;
    expect(trigger!.type).toBe('prometheus');
    expect(trigger!.metadata.activationThreshold).toBeDefined();
    const query = trigger!.metadata.query!;
    // Every selector names this namespace (the ServiceMonitor's targets carry it) ...
    const namespaces = [...query.matchAll(/namespace="([^"]*)"/g)].map((m) => m[1]);
    expect(namespaces).toEqual([so.metadata.namespace, so.metadata.namespace]);
    // ... and the queues the worker consumes: all of them unless DROVER_QUEUES narrows it.
    const workerQueues = envOf(worker.spec.template.spec.containers[0]!, 'DROVER_QUEUES');
    expect(workerQueues).toBeUndefined();
    expect(query).not.toMatch(/queue\s*=/);
  });
});
