import { runCli } from '../cli';
import type { CliIo } from '../io';

/** What one in-process `drover` invocation printed and exited with. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** An in-memory CliIo: no terminal, no colour, a fixed clock and the stdin text given. */
export function fakeIo(opts: { now?: number; stdin?: string; env?: NodeJS.ProcessEnv; isTty?: boolean } = {}) {
  const printed = { out: '', err: '' };
  const io: CliIo = {
    out: (t) => void (printed.out += t),
    err: (t) => void (printed.err += t),
    env: opts.env ?? {},
    isTty: opts.isTty ?? false,
    columns: 120,
    stdinIsTty: false,
    ask: () => Promise.resolve(undefined),
    readStdin: () => Promise.resolve(opts.stdin ?? ''),
    now: () => opts.now ?? Date.parse('2026-01-01T00:00:00Z'),
  };
  return { io, printed };
}

/** Runs `drover <argv>` in-process with {@link fakeIo}. */
export async function drover(argv: string[], opts: Parameters<typeof fakeIo>[0] = {}): Promise<CliRun> {
  const { io, printed } = fakeIo(opts);
  const code = await runCli(argv, io);
  return { code, ...printed };
}
