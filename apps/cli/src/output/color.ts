/** ANSI styles, or identity functions when colour is off (`--no-color`, `NO_COLOR`, not a terminal). */
export interface Palette {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  /** A run or routine status in the colour people expect (green done, red parked, …). */
  status(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

/** https://no-color.org: any non-empty NO_COLOR turns colour off; FORCE_COLOR turns it on. */
export function colorWanted(flag: boolean, env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (!flag) return false;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return isTty && env.TERM !== 'dumb';
}

export function palette(enabled: boolean): Palette {
  const id = (s: string) => s;
  const p = enabled
    ? {
        bold: wrap(1, 22),
        dim: wrap(2, 22),
        red: wrap(31, 39),
        green: wrap(32, 39),
        yellow: wrap(33, 39),
        cyan: wrap(36, 39),
      }
    : { bold: id, dim: id, red: id, green: id, yellow: id, cyan: id };
  const byStatus: Record<string, (s: string) => string> = {
    succeeded: p.green,
    active: p.green,
    done: p.green,
    running: p.cyan,
    queued: p.yellow,
    scheduled: p.yellow,
    'awaiting-approval': p.yellow,
    waiting: p.yellow,
    paused: p.yellow,
    parked: p.red,
    failed: p.red,
    disabled: p.red,
    abandoned: p.red,
    canceled: p.dim,
    skipped: p.dim,
    archived: p.dim,
  };
  return { enabled, ...p, status: (s) => (byStatus[s] ?? id)(s) };
}

// eslint-disable-next-line no-control-regex -- the point is to match ANSI escapes
const ANSI = /\u001b\[[0-9;]*m/g;

/** The printed width of `s`: ANSI escapes take no room. */
export function visibleLength(s: string): number {
  return s.replace(ANSI, '').length;
}
