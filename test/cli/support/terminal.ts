import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { waitFor } from '@drover/testing';

const run = promisify(execFile);

/**
 * A private tmux server (its own socket, so parallel runs and a developer's tmux never meet) whose
 * sessions are real terminals: what `drover` prints there is what a person sees. Each session is
 * a plain bash with a `$ ` prompt and the environment given, so captures read like a transcript.
 */
export class TmuxServer {
  readonly socket = `drover-e2e-${process.pid}-${randomBytes(4).toString('hex')}`;
  private sessions = 0;

  constructor(private readonly env: Record<string, string>) {}

  async tmux(...args: string[]): Promise<string> {
    return (await run('tmux', ['-L', this.socket, ...args])).stdout;
  }

  /** A new 120×30 terminal running bash, named uniquely. */
  async open(label: string): Promise<Terminal> {
    const name = `${label}-${++this.sessions}`;
    // Through env(1) rather than `new-session -e`: the shell must start with exactly this environment.
    const env = Object.entries({ ...this.env, PS1: '$ ', TERM: 'xterm-256color' }).map(([k, v]) =>
      shellQuote(`${k}=${v}`),
    );
    await this.tmux(
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      '120',
      '-y',
      '30',
      `env -i ${env.join(' ')} bash --norc --noprofile`,
    );
    return new Terminal(this, name);
  }

  async kill(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
  }
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export class Terminal {
  constructor(
    private readonly server: TmuxServer,
    readonly name: string,
  ) {}

  /** Types `line` and Enter, as a person would. */
  async type(line: string): Promise<void> {
    await this.server.tmux('send-keys', '-t', this.name, '-l', line);
    await this.server.tmux('send-keys', '-t', this.name, 'Enter');
  }

  /** Sends keys by tmux name (`C-c`, `Enter`). */
  async keys(...keys: string[]): Promise<void> {
    await this.server.tmux('send-keys', '-t', this.name, ...keys);
  }

  /** The text on screen and in the scrollback, trailing blanks trimmed (no colours). */
  async capture(): Promise<string> {
    const text = await this.server.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', this.name);
    return text.replace(/\s+$/, '');
  }

  /** Polls the pane until `probe` finds what it waits for; fails with the last capture. */
  async waitFor<T>(
    what: string,
    probe: (pane: string) => T | undefined | null | false,
    timeoutMs = 15_000,
  ): Promise<T> {
    let last = '';
    try {
      return await waitFor(
        what,
        async () => {
          last = await this.capture();
          return probe(last) ?? undefined;
        },
        { timeoutMs, intervalMs: 40 },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- pane ${this.name} ---\n${last}\n---`, { cause: err });
    }
  }

  /** Waits for the `exit=N` the typed command line echoes when it ends. */
  async exitCode(timeoutMs = 20_000): Promise<number> {
    return this.waitFor('the command to end (exit=N)', (pane) => /^exit=(\d+)$/m.exec(pane)?.[1], timeoutMs).then(
      Number,
    );
  }

  async close(): Promise<void> {
    await this.server.tmux('kill-session', '-t', this.name).catch(() => undefined);
  }
}
