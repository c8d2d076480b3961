import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '@drover/testing';
import { ROOT, resolvePort, type Container, type HttpProbe, type K8sObject, type Workload } from './k8s';

/**
 * Runs one container of a rendered pod template as a local process, the way the kubelet would start
 * it, with these stand-ins (everything else comes from the manifest as is):
 * - the image: the repository after `npm run build` is /app (cwd), its entrypoint `tini -- node` is
 *   `node` (tini only forwards signals, which a direct child gets anyway), its env NODE_ENV=production;
 * - volumes: ConfigMap and Secret volumes become files in a temp dir under the mountPath, emptyDirs
 *   empty dirs there; env values naming a path under a mountPath point into that dir (and TMPDIR at
 *   the /tmp emptyDir), as the file system of the pod would;
 * - the pod network: each containerPort moves to a free loopback port (PORT, which the manifest test
 *   asserts equals the http port, moves with it), and Service DNS names resolve through `dns`;
 * - Secrets are what the operator would have created: `secrets` by name and key.
 */
export interface PodOptions {
  podName: string;
  objects: K8sObject[];
  /** `host:port` as the manifest dials it → `host:port` on this machine. */
  dns: Record<string, string>;
  secrets: Record<string, Record<string, string>>;
}

export interface ProbeResult {
  ok: boolean;
  status?: number;
  error?: string;
}

export interface Termination {
  exit: number | NodeJS.Signals;
  /** From the start of termination (preStop included) to the exit. */
  elapsedMs: number;
  /** SIGKILLed at the end of the grace period. */
  killed: boolean;
}

export class KubeletContainer {
  private child!: ChildProcess;
  private out = '';
  private exited!: Promise<number | NodeJS.Signals>;
  private readonly ports = new Map<number, number>();
  readonly dir: string;

  private constructor(
    readonly workload: Workload,
    readonly container: Container,
    private readonly opts: PodOptions,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), `drover-pod-${opts.podName}-`));
  }

  static async start(workload: Workload, opts: PodOptions): Promise<KubeletContainer> {
    const c = new KubeletContainer(workload, workload.spec.template.spec.containers[0]!, opts);
    for (const p of c.container.ports ?? []) c.ports.set(p.containerPort, await freePort());
    c.mountVolumes();
    c.spawn();
    return c;
  }

  get podName(): string {
    return this.opts.podName;
  }

  get pod() {
    return this.workload.spec.template.spec;
  }

  output(): string {
    return this.out;
  }

  /** The loopback port standing in for a containerPort (a number or a port name). */
  hostPort(port: string | number): number {
    const p = this.ports.get(resolvePort(this.container, port));
    if (p === undefined) throw new Error(`${this.container.name} exposes no port ${port}`);
    return p;
  }

  /** One httpGet probe as the kubelet makes it: its path and port, timeoutSeconds, 200-399 is success. */
  async probe(which: 'startupProbe' | 'readinessProbe' | 'livenessProbe'): Promise<ProbeResult> {
    const spec = this.container[which] as (HttpProbe & { timeoutSeconds?: number }) | undefined;
    if (!spec?.httpGet) throw new Error(`${this.container.name} has no httpGet ${which}`);
    const url = `http://127.0.0.1:${this.hostPort(spec.httpGet.port)}${spec.httpGet.path}`;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout((spec.timeoutSeconds ?? 1) * 1000) });
      await res.arrayBuffer();
      return { ok: res.status >= 200 && res.status < 400, status: res.status };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }

  /**
   * Probes until `which` succeeds, failing when the kubelet would have given up: after
   * failureThreshold × periodSeconds for the startup probe (it then kills the container); readiness
   * has no such end, so `timeoutMs` bounds it. Polls more often than periodSeconds to save time.
   */
  async waitFor(which: 'startupProbe' | 'readinessProbe', timeoutMs = 30_000): Promise<number> {
    const spec = this.container[which]!;
    const limit =
      which === 'startupProbe' ? (spec.periodSeconds ?? 10) * (spec.failureThreshold ?? 3) * 1000 : timeoutMs;
    const started = Date.now();
    let last: ProbeResult = { ok: false };
    while (Date.now() - started < limit) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`${this.opts.podName} exited before its ${which} passed:\n${this.out.slice(-3000)}`);
      }
      last = await this.probe(which);
      if (last.ok) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(
      `${this.opts.podName}: ${which} failed for ${limit} ms (last: ${last.status ?? last.error}):\n${this.out.slice(-3000)}`,
    );
  }

  /**
   * Pod termination as the kubelet does it: the preStop hook (a sleep here), then SIGTERM, then
   * SIGKILL when terminationGracePeriodSeconds (counted from the start, preStop included) runs out.
   */
  async terminate(): Promise<Termination> {
    const graceMs = (this.pod.terminationGracePeriodSeconds ?? 30) * 1000;
    const started = Date.now();
    let killed = false;
    const kill = setTimeout(() => {
      killed = true;
      this.child.kill('SIGKILL');
    }, graceMs);
    const preStop = this.container.lifecycle?.preStop?.sleep?.seconds ?? 0;
    await new Promise((r) => setTimeout(r, preStop * 1000));
    this.child.kill('SIGTERM');
    const exit = await this.exited;
    clearTimeout(kill);
    return { exit, elapsedMs: Date.now() - started, killed };
  }

  /** Kills the process if it still runs and removes its files. */
  async cleanup(): Promise<void> {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private hostPath(path: string): string {
    return join(this.dir, path);
  }

  private mountVolumes(): void {
    for (const mount of this.container.volumeMounts ?? []) {
      const volume = this.pod.volumes?.find((v) => v.name === mount.name);
      if (!volume) throw new Error(`volume ${mount.name} is not defined`);
      const at = this.hostPath(mount.mountPath);
      mkdirSync(at, { recursive: true });
      let files: Record<string, string> = {};
      if (volume.configMap) {
        const cm = this.opts.objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === volume.configMap!.name);
        if (!cm) throw new Error(`ConfigMap ${volume.configMap.name} is not in the rendered objects`);
        files = pick(cm.data ?? {}, volume.configMap.items);
      } else if (volume.secret) {
        const secret = this.opts.secrets[volume.secret.secretName];
        // The kubelet does not start a container whose non-optional Secret volume is missing.
        if (!secret && volume.secret.optional !== true)
          throw new Error(`Secret ${volume.secret.secretName} is missing`);
        files = pick(secret ?? {}, volume.secret.items);
      } else if (!volume.emptyDir) {
        throw new Error(`volume ${volume.name}: only configMap, secret and emptyDir are emulated`);
      }
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(at, path)), { recursive: true });
        writeFileSync(join(at, path), text);
      }
      if (mount.readOnly) for (const path of Object.keys(files)) chmodSync(join(at, path), 0o444);
    }
  }

  private env(): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', NODE_ENV: 'production' };
    const tmp = this.container.volumeMounts?.find((m) => m.mountPath === '/tmp');
    if (tmp) env.TMPDIR = this.hostPath('/tmp');
    for (const e of this.container.env ?? []) {
      let value: string;
      if (e.value !== undefined) value = e.value;
      else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.name') value = this.opts.podName;
      else if (e.valueFrom?.secretKeyRef) {
        const { name, key } = e.valueFrom.secretKeyRef;
        const v = this.opts.secrets[name]?.[key];
        if (v === undefined) throw new Error(`Secret ${name} has no key ${key} (for ${e.name})`);
        value = v;
      } else if (e.valueFrom?.configMapKeyRef) {
        const { name, key } = e.valueFrom.configMapKeyRef;
        const cm = this.opts.objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name);
        value = cm?.data?.[key] ?? '';
      } else throw new Error(`env ${e.name}: this valueFrom is not emulated`);
      if (value.includes('$(')) throw new Error(`env ${e.name}: $(VAR) expansion is not emulated`);
      env[e.name] = this.localize(e.name, value);
    }
    return env;
  }

  /** The value as seen from this machine: paths into the pod's volumes, Service names, moved ports. */
  private localize(name: string, value: string): string {
    if (name === 'PORT') return String(this.hostPort(Number(value)));
    const mount = this.container.volumeMounts?.find((m) => value.startsWith(`${m.mountPath}/`));
    if (mount) return this.hostPath(value);
    for (const [from, to] of Object.entries(this.opts.dns)) value = value.replace(`//${from}`, `//${to}`);
    return value;
  }

  private spawn(): void {
    const command = this.container.command ?? ['node'];
    const [bin, ...args] = [...command, ...(this.container.args ?? [])];
    this.child = spawn(bin === 'node' ? process.execPath : bin!, args, {
      cwd: ROOT,
      env: this.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => (this.out = (this.out + chunk.toString()).slice(-200_000));
    this.child.stdout!.on('data', collect);
    this.child.stderr!.on('data', collect);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  }
}

function pick(data: Record<string, string>, items?: { key: string; path: string }[]): Record<string, string> {
  if (!items) return data;
  return Object.fromEntries(items.map((i) => [i.path, data[i.key] ?? '']));
}
