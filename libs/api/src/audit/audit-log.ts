import { Injectable } from '@nestjs/common';
import { DroverKeys, RedisConnections } from '@drover/redis';

/** One mutating API call as the audit log keeps it. */
export interface AuditEntry {
  /** Stream id: time-ordered, unique; page with `before`. */
  id: string;
  at: string;
  token: string;
  role: string;
  action: string;
  /** What the call acted on: path parameters (`routine=nightly`), or `-`. */
  target: string;
  status: number;
  ip: string;
}

/** How many entries the log keeps (Redis trims the oldest, approximately, as it writes). */
export const AUDIT_MAX_ENTRIES = 10_000;

/**
 * The audit log: a capped Redis stream shared by every api replica, so "who paused nightly?"
 * has one answer whichever replica served the call.
 */
@Injectable()
export class AuditLog {
  constructor(
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
  ) {}

  private get key(): string {
    return this.keys.core('audit');
  }

  async record(e: Omit<AuditEntry, 'id'>): Promise<void> {
    await this.connections.command.xadd(
      this.key,
      'MAXLEN',
      '~',
      AUDIT_MAX_ENTRIES,
      '*',
      'at',
      e.at,
      'token',
      e.token,
      'role',
      e.role,
      'action',
      e.action,
      'target',
      e.target,
      'status',
      String(e.status),
      'ip',
      e.ip,
    );
  }

  /** Newest first; `before` (an entry id) pages back. */
  async list(opts: { limit: number; before?: string }): Promise<{ entries: AuditEntry[]; next?: string }> {
    const end = opts.before ? `(${opts.before}` : '+';
    const rows = (await this.connections.command.xrevrange(this.key, end, '-', 'COUNT', opts.limit + 1)) as [
      string,
      string[],
    ][];
    const entries = rows.slice(0, opts.limit).map(([id, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
      return {
        id,
        at: f.at ?? '',
        token: f.token ?? '',
        role: f.role ?? '',
        action: f.action ?? '',
        target: f.target ?? '-',
        status: Number(f.status ?? 0),
        ip: f.ip ?? '',
      };
    });
    return { entries, ...(rows.length > opts.limit && { next: entries[entries.length - 1]!.id }) };
  }
}
