import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '@drover/testing';
import { ROOT, resolvePort, type Container, type K8sObject, type Workload } from './k8s';

/**
 * Runs a rendered pod template as local processes, the way the kubelet would start it: its init
 * containers one after the other, each to a 0 exit (else the pod never starts), then its first
 * container, with these stand-ins (everything else comes from the manifest as is):
 * - the Drover image: the repository after `npm run build` is /app (cwd), its entrypoint `tini -- node`
 *   is `node` (tini only forwards signals, which a direct child gets anyway), its env
 *   NODE_ENV=production; any other image is its command from this machine's PATH (redis-server, sh);
 * - volumes: each volume is a temp dir the pod's containers share (ConfigMap and Secret files in it,
 *   read-only as Kubernetes mounts them; an emptyDir or a volumeClaimTemplate's fresh claim empty);
 *   env values and args naming a mountPath or a path under it point into that dir (and TMPDIR at the
 *   /tmp emptyDir), as the file system of the pod would; a read-only emptyDir mount is not enforced;
 * - env: `$(VAR)` expands from the variables defined before it, as Kubernetes expands it;
 * - the pod network: each containerPort moves to a free loopback port (PORT, which the manifest test
 *   asserts equals the http port, moves with it; a server that takes its address from flags gets
 *   them from `network`), and Service DNS names resolve through `dns`;
 * - Secrets are what the operator would have created: `secrets` by name and key.
 */
export interface PodOptions {
  podName: string;
  objects: K8sObject[];
  /** `host:port` as the manifest dials it → `host:port` on this machine. */
  dns: Record<string, string>;
  secrets: Record<string, Record<string, string>>;
  /**
   * For a server that takes its address from flags rather than PORT (redis-server): `args` appended to
   * its command put it on the moved ports, `probeArgs` go after an exec probe command's program (a
   * client that would dial the pod's own localhost, e.g. redis-cli's default 127.0.0.1:6379).
   */
  network?: (hostPort: (port: string | number) => number) => { args?: string[]; probeArgs?: string[] };
}

export interface ProbeResult {
  ok: boolean;
  status?: number;
  error?: string;
  /** An exec probe's stdout. */
  output?: string;
}

type ProbeName = 'startupProbe' | 'readinessProbe' | 'livenessProbe';

export interface Termination {
  exit: number | NodeJS.Signals;
  /** From the start of termination (preStop included) to the exit. */
  elapsedMs: number;
  /** SIGKILLed at the end of the grace period. */
  killed: boolean;
}

export class KubeletContainer {
  private child!: ChildProcess;
  /** The main container's stdout and stderr, the last 200 kB. */
  output!: () => string;
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
    try {
      for (const p of c.container.ports ?? []) c.ports.set(p.containerPort, await freePort());
      for (const init of c.pod.initContainers ?? []) {
        c.mountVolumes(init);
        const [child, out] = c.spawn(init);
        const exit = await new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
        if (exit !== 0)
          throw new Error(`${opts.podName}: init container ${init.name} exited ${String(exit)}:\n${out()}`);
      }
      c.mountVolumes(c.container);
      const [child, out] = c.spawn(c.container);
      c.child = child;
      c.output = out;
      c.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
    } catch (err) {
      await c.cleanup();
      throw err;
    }
    return c;
  }

  get podName(): string {
    return this.opts.podName;
  }

  get pod() {
    return this.workload.spec.template.spec;
  }

  /** The loopback port standing in for a containerPort (a number or a port name). */
  hostPort(port: string | number): number {
    const p = this.ports.get(resolvePort(this.container, port));
    if (p === undefined) throw new Error(`${this.container.name} exposes no port ${port}`);
    return p;
  }

  /**
   * One probe as the kubelet makes it, within timeoutSeconds: httpGet (its path and port, 200-399 is
   * success), tcpSocket (the port accepts a connection) or exec (the command, with the container's
   * env, exits 0).
   */
  async probe(which: ProbeName): Promise<ProbeResult> {
    const spec = this.container[which];
    if (!spec) throw new Error(`${this.container.name} has no ${which}`);
    const timeoutMs = (spec.timeoutSeconds ?? 1) * 1000;
    try {
      if (spec.httpGet) {
        const url = `http://127.0.0.1:${this.hostPort(spec.httpGet.port)}${spec.httpGet.path}`;
        const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
        await res.arrayBuffer();
        return { ok: res.status >= 200 && res.status < 400, status: res.status };
      }
      if (spec.tcpSocket) {
        const port = this.hostPort(spec.tcpSocket.port);
        await new Promise<void>((resolve, reject) => {
          const socket = connect({ host: '127.0.0.1', port, timeout: timeoutMs });
          socket.once('connect', () => (socket.destroy(), resolve()));
          socket.once('timeout', () => (socket.destroy(), reject(new Error('timeout'))));
          socket.once('error', reject);
        });
        return { ok: true };
      }
      if (spec.exec) {
        const [bin, ...rest] = spec.exec.command;
        const probeArgs = this.network().probeArgs ?? [];
        const res = spawnSync(bin!, [...probeArgs, ...rest], {
          env: this.env(this.container),
          encoding: 'utf8',
          timeout: timeoutMs,
        });
        return { ok: res.status === 0, output: res.stdout, error: res.error?.message ?? (res.stderr || undefined) };
      }
      throw new Error(`${this.container.name}: this ${which} is not emulated`);
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }

  /**
   * Probes until `which` succeeds, failing when the kubelet would have given up: after
   * failureThreshold × periodSeconds for the startup probe (it then kills the container); readiness
   * has no such end, so `timeoutMs` bounds it. Polls more often than periodSeconds to save time.
   */
  async waitFor(which: Exclude<ProbeName, 'livenessProbe'>, timeoutMs = 30_000): Promise<number> {
    const spec = this.container[which]!;
    const limit =
      which === 'startupProbe' ? (spec.periodSeconds ?? 10) * (spec.failureThreshold ?? 3) * 1000 : timeoutMs;
    const started = Date.now();
    let last: ProbeResult = { ok: false };
    while (Date.now() - started < limit) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`${this.opts.podName} exited before its ${which} passed:\n${this.output().slice(-3000)}`);
      }
      last = await this.probe(which);
      if (last.ok) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(
      `${this.opts.podName}: ${which} failed for ${limit} ms (last: ${last.status ?? last.error}):\n${this.output().slice(-3000)}`,
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

  /** Where a container's path is on this machine: its mounts are links into the pod's volume dirs. */
  private hostPath(path: string, container = this.container): string {
    return join(this.dir, 'containers', container.name, path);
  }

  private network(): { args?: string[]; probeArgs?: string[] } {
    return this.opts.network?.((port) => this.hostPort(port)) ?? {};
  }

  /** The volume's dir, filled the first time a container of the pod mounts it. */
  private volumeDir(name: string): string {
    const at = join(this.dir, 'volumes', name);
    if (existsSync(at)) return at;
    mkdirSync(at, { recursive: true });
    const volume = this.pod.volumes?.find((v) => v.name === name);
    const claims = (this.workload.spec as { volumeClaimTemplates?: { metadata: { name: string } }[] })
      .volumeClaimTemplates;
    let files: Record<string, string> = {};
    if (volume?.configMap) {
      const cm = this.opts.objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === volume.configMap!.name);
      if (!cm) throw new Error(`ConfigMap ${volume.configMap.name} is not in the rendered objects`);
      files = pick(cm.data ?? {}, volume.configMap.items);
    } else if (volume?.secret) {
      const secret = this.opts.secrets[volume.secret.secretName];
      // The kubelet does not start a container whose non-optional Secret volume is missing.
      if (!secret && volume.secret.optional !== true) throw new Error(`Secret ${volume.secret.secretName} is missing`);
      files = pick(secret ?? {}, volume.secret.items);
    } else if (!volume?.emptyDir && !(volume === undefined && claims?.some((c) => c.metadata.name === name))) {
      if (!volume) throw new Error(`volume ${name} is not defined`);
      throw new Error(`volume ${name}: only configMap, secret, emptyDir and volumeClaimTemplates are emulated`);
    }
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(at, path)), { recursive: true });
      writeFileSync(join(at, path), text);
      chmodSync(join(at, path), 0o444); // ConfigMap and Secret volumes are read-only
    }
    return at;
  }

  private mountVolumes(container: Container): void {
    mkdirSync(this.hostPath('/', container), { recursive: true });
    for (const mount of container.volumeMounts ?? []) {
      const at = this.hostPath(mount.mountPath, container);
      mkdirSync(dirname(at), { recursive: true });
      symlinkSync(this.volumeDir(mount.name), at);
    }
  }

  private env(container: Container): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    if (!container.command) env.NODE_ENV = 'production'; // the Drover image's entrypoint and env
    const defined: Record<string, string> = {};
    const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
    if (tmp) env.TMPDIR = this.hostPath('/tmp', container);
    for (const e of container.env ?? []) {
      let value: string;
      if (e.value !== undefined) value = expand(e.value, defined);
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
      defined[e.name] = value;
      env[e.name] = this.localize(container, e.name, value);
    }
    return env;
  }

  /** The value as seen from this machine: paths into the pod's volumes, Service names, moved ports. */
  private localize(container: Container, name: string, value: string): string {
    if (name === 'PORT') return String(this.hostPort(Number(value)));
    const mount = container.volumeMounts?.find((m) => value === m.mountPath || value.startsWith(`${m.mountPath}/`));
    if (mount) return this.hostPath(value, container);
    // A URL's host, after `//` or its user info's `@`.
    for (const [from, to] of Object.entries(this.opts.dns)) {
      value = value.replace(`//${from}`, `//${to}`).replace(`@${from}`, `@${to}`);
    }
    return value;
  }

  /** Starts a container's process; returns it and a reader of its output (the last 200 kB). */
  private spawn(container: Container): [ChildProcess, () => string] {
    const command = container.command ?? ['node'];
    const main = container === this.container;
    const [bin, ...args] = [
      ...command,
      ...(container.args ?? []).map((a) => this.localize(container, '', a)),
      ...((main && this.network().args) || []),
    ];
    const child = spawn(bin === 'node' ? process.execPath : bin!, args, {
      cwd: ROOT,
      env: this.env(container),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const collect = (chunk: Buffer) => (out = (out + chunk.toString()).slice(-200_000));
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    return [child, () => out];
  }
}

/** Kubernetes' `$(VAR)` expansion: a variable defined before it; `$$` is a literal `$`; others stay as written. */
function expand(value: string, defined: Record<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name?: string) =>
    name === undefined ? '$' : (defined[name] ?? whole),
  );
}

function pick(data: Record<string, string>, items?: { key: string; path: string }[]): Record<string, string> {
  if (!items) return data;
  return Object.fromEntries(items.map((i) => [i.path, data[i.key] ?? '']));
}
