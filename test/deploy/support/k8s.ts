import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The repository root (this file is test/deploy/support/k8s.ts). */
export const ROOT = join(__dirname, '..', '..', '..');
export const OVERLAYS = ['dev', 'prod'] as const;
export type Overlay = (typeof OVERLAYS)[number];
/** The Drover apps the manifests run, each as `node dist/apps/<app>/main.js`. */
export const APPS = ['scheduler', 'worker', 'api'] as const;
export type App = (typeof APPS)[number];

/* Just the fields the tests read; the schemas (scripts/k8s/validate-manifests.mjs) check the rest. */
export interface Meta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
}
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}
export interface HttpProbe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
  exec?: { command: string[] };
  timeoutSeconds?: number;
  periodSeconds?: number;
  failureThreshold?: number;
}
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    secretKeyRef?: { name: string; key: string };
    configMapKeyRef?: { name: string; key: string };
  };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: unknown[];
  livenessProbe?: HttpProbe;
  readinessProbe?: HttpProbe;
  startupProbe?: HttpProbe;
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[]; add?: string[] } };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
}
export interface Volume {
  name: string;
  configMap?: { name: string; items?: { key: string; path: string }[] };
  secret?: { secretName: string; optional?: boolean; items?: { key: string; path: string }[] };
  emptyDir?: Record<string, unknown>;
  persistentVolumeClaim?: unknown;
}
export interface PodSpec {
  initContainers?: Container[];
  containers: Container[];
  volumes?: Volume[];
  securityContext?: Record<string, unknown>;
  terminationGracePeriodSeconds?: number;
  automountServiceAccountToken?: boolean;
  hostNetwork?: boolean;
}
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}
export interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

/** `kubectl kustomize k8s/overlays/<overlay>` parsed into objects. */
export function render(overlay: Overlay): K8sObject[] {
  const text = execFileSync('kubectl', ['kustomize', join(ROOT, 'k8s', 'overlays', overlay)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/** Objects that carry a pod template (all this repository renders). */
export const isWorkload = (o: K8sObject): o is Workload => ['Deployment', 'StatefulSet'].includes(o.kind);

/** The Deployment of a Drover app (labelled app.kubernetes.io/component=<app>). */
export function appDeployment(objects: K8sObject[], app: App): Workload {
  const found = objects.filter(
    (o) =>
      o.kind === 'Deployment' &&
      o.metadata.labels?.['app.kubernetes.io/name'] === 'drover' &&
      o.metadata.labels?.['app.kubernetes.io/component'] === app,
  );
  if (found.length !== 1) throw new Error(`expected one Deployment of ${app}, found ${found.length}`);
  return found[0] as Workload;
}

/** Whether a label selector selects these labels (matchLabels and matchExpressions, as the API server does). */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpr = (selector.matchExpressions ?? []).every((e) => {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    switch (e.operator) {
      case 'In':
        return has && (e.values ?? []).includes(labels[e.key]!);
      case 'NotIn':
        return !has || !(e.values ?? []).includes(labels[e.key]!);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
    }
  });
  return byLabel && byExpr;
}

/** The container port a probe's or Service's `port` means: a number, or the name of a container port. */
export function resolvePort(container: Container, port: string | number): number {
  if (typeof port === 'number') return port;
  const found = container.ports?.find((p) => p.name === port);
  if (!found) throw new Error(`container ${container.name} has no port named ${port}`);
  return found.containerPort;
}

/** Every container of a pod, init containers first (the house rules hold for both). */
export const allContainers = (pod: PodSpec): Container[] => [...(pod.initContainers ?? []), ...pod.containers];

export const envOf = (c: Container, name: string): EnvVar | undefined => c.env?.find((e) => e.name === name);

/** The volume (and its mount) that holds a file path, as the kubelet would mount it. */
export function volumeForPath(
  pod: PodSpec,
  container: Container,
  path: string,
): { volume: Volume; mountPath: string; readOnly: boolean; relative: string } | undefined {
  const mount = (container.volumeMounts ?? [])
    .filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`))
    .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  if (!mount) return undefined;
  const volume = pod.volumes?.find((v) => v.name === mount.name);
  if (!volume) throw new Error(`mount ${mount.name} of ${container.name} has no volume`);
  return {
    volume,
    mountPath: mount.mountPath,
    readOnly: mount.readOnly === true,
    relative: path.slice(mount.mountPath.replace(/\/$/, '').length + 1),
  };
}
