/**
 * How the as-deployed bench talks to its producer processes: the process prints `ready` once booted
 * (Nest, connections, queue objects), runs when a line arrives on stdin, and prints one JSON line
 * of {@link ProducerReport}. Boot time is never measured; only the calls are.
 */
export type ProducerMode = 'single' | 'bulk' | 'idempotent' | 'shaped' | 'steady' | 'steady-idempotent';

/**
 * Calls a `steady` producer makes before it says `ready` (BENCH_WARM, 5000): a service that
 * enqueues all day runs JIT-compiled code, while a fresh process's first 20 000 calls are partly
 * interpreted, which costs the side with more code more. Both sides warm up the same way.
 */
export const WARM_CALLS = Number(process.env.BENCH_WARM ?? 5_000);

/** The mode a producer times: `steady` is `single` after warming up, `steady-idempotent` is `idempotent`. */
export function timedModeOf(mode: ProducerMode): ProducerMode {
  if (mode === 'steady') return 'single';
  if (mode === 'steady-idempotent') return 'idempotent';
  return mode;
}

export interface ProducerReport {
  /** Wall time of the calls, s. */
  seconds: number;
  /** CPU this process spent during the calls, µs per job. */
  cpuUs: number;
}

export const BULK_CHUNK = 1_000;

export function waitForGo(): Promise<void> {
  return new Promise((resolve) =>
    process.stdin.once('data', () => {
      // The bench's only message: stop reading so the process can exit when done.
      process.stdin.destroy();
      resolve();
    }),
  );
}

/** Runs `call(i)` for i in [0, n) with `inFlight` calls outstanding at any time. */
export async function withInFlight(n: number, inFlight: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) await call(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, n) }, lane));
}

/** Times `fn` (wall and this process's CPU) and prints the report line. */
export async function report(n: number, fn: () => Promise<void>): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const line: ProducerReport = { seconds, cpuUs: (cpu.user + cpu.system) / n };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

export function argsOf(argv: string[]): {
  queue: string;
  prefix: string;
  mode: ProducerMode;
  n: number;
  inFlight: number;
} {
  const [queue, prefix, mode, n, inFlight] = argv.slice(2);
  return { queue: queue!, prefix: prefix!, mode: mode as ProducerMode, n: Number(n), inFlight: Number(inFlight) };
}
