import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { testRedisUrl } from './test-redis';

/** One command as MONITOR reports it: the name lower-cased, then its arguments. */
export type MonitoredCommand = string[];

/**
 * Watches the test server with MONITOR over a plain socket. ioredis's own `monitor()` fails now
 * and then with "Command queue state error" when other test files keep the shared server busy,
 * since their commands can reach the new connection before its reply to MONITOR.
 */
export class RedisMonitor {
  private buffer = '';
  private readonly seen: MonitoredCommand[] = [];
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly socket: Socket,
    private readonly scripted: boolean,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.read(chunk));
  }

  /** `scripted: false` leaves out the commands scripts run inside Redis: only what clients sent. */
  static async start(url = testRedisUrl(), opts: { scripted?: boolean } = {}): Promise<RedisMonitor> {
    const { hostname, port } = new URL(url);
    const socket = new Socket();
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(Number(port) || 6379, hostname, () => resolve());
    });
    const monitor = new RedisMonitor(socket, opts.scripted ?? true);
    socket.write('MONITOR\r\n');
    await monitor.until(() => monitor.ok);
    return monitor;
  }

  private ok = false;

  /**
   * Every command the server ran since the last call (or the start) until now: a marker sent on
   * another connection after the work is seen last, so nothing the work sent is still on its way.
   */
  async commands(): Promise<MonitoredCommand[]> {
    const marker = `monitor-mark-${randomBytes(6).toString('hex')}`;
    const client = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    try {
      await client.echo(marker);
    } finally {
      client.disconnect();
    }
    await this.until(() => this.seen.some((c) => c[0] === 'echo' && c[1] === marker));
    const at = this.seen.findIndex((c) => c[0] === 'echo' && c[1] === marker);
    return this.seen.splice(0, at + 1).slice(0, at);
  }

  stop(): void {
    this.socket.destroy();
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\r\n')) >= 0) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      if (line === '+OK') this.ok = true;
      else if (line.startsWith('+') && (this.scripted || !/^\+\S+ \[\d+ lua\]/.test(line)))
        this.seen.push(parseMonitorLine(line));
    }
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake();
  }

  private async until(done: () => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error('MONITOR did not report in time');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }
}

/** `+1700000000.123 [0 127.0.0.1:5000] "hset" "k" "a\"b"` → ['hset', 'k', 'a"b']. */
export function parseMonitorLine(line: string): MonitoredCommand {
  const args: string[] = [];
  for (const m of line.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
    args.push(
      m[1]!.replace(/\\x([0-9a-f]{2})|\\(.)/gi, (_all, hex: string | undefined, ch: string | undefined) =>
        hex ? String.fromCharCode(parseInt(hex, 16)) : ch === 'n' ? '\n' : ch === 'r' ? '\r' : ch === 't' ? '\t' : ch!,
      ),
    );
  }
  if (args[0]) args[0] = args[0].toLowerCase();
  return args;
}
