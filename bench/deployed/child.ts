/**
 * The bench's child processes: a node script that prints `ready` once booted, then waits for a line
 * on stdin (its go) and prints report lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** The compiled bench child `name` (a file of bench/deployed). */
export const script = (name: string) => join(__dirname, `${name}.js`);

/** A child node process speaking the bench protocol: prints `ready`, then report lines. */
export interface Child {
  proc: ChildProcess;
  ready: Promise<void>;
  /** Resolves when the process has exited (whenever that was). */
  gone: Promise<void>;
  nextLine(): Promise<string>;
}

export function spawnChild(file: string, redisUrl: string, args: string[]): Child {
  const proc = spawn(process.execPath, [file, ...args], {
    env: { ...process.env, REDIS_URL: redisUrl },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  let buf = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const exited = gone.then((): never => {
    throw new Error(`${file} exited with ${proc.exitCode ?? proc.signalCode}`);
  });
  exited.catch(() => undefined);
  const nextLine = () =>
    Promise.race([
      new Promise<string>((resolve) => {
        const l = lines.shift();
        if (l !== undefined) resolve(l);
        else waiters.push(resolve);
      }),
      exited,
    ]);
  const ready = nextLine().then((l) => {
    if (l !== 'ready') throw new Error(`${file}: expected ready, got ${l}`);
  });
  return { proc, ready, gone, nextLine };
}
