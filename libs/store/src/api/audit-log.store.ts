import { Inject, Injectable, Optional } from '@nestjs/common';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { escapeControls } from './audit-text';

/** One audited API call as the audit log keeps it. */
export interface AuditEntry {
  /** Stream id: time-ordered, unique; page with `before`. */
  id: string;
  at: string;
  token: string;
  role: string;
  action: string;
  /** What the call acted on: path parameters (`routine=nightly`), or `-`. Control characters escaped. */
  target: string;
  status: number;
  ip: string;
}

/**
 * The two logs. `principals`: what authenticated callers did, the calls that passed the route's
 * role check (and the token's rate limit). `refused`: the calls refused at the door, before
 * anybody was authenticated (no or an invalid token, a failed login) or for a role below the
 * route's (a 403 on a purge is worth knowing about). They are separate streams with separate caps,
 * so no amount of refused traffic, anonymous or from a viewer token, can push an admin's action out
 * of the first.
 */
export const AUDIT_LOGS = ['principals', 'refused'] as const;
export type AuditLogName = (typeof AUDIT_LOGS)[number];

/** How many entries each log keeps (Redis trims the oldest, approximately, as it writes). */
export type AuditCaps = Record<AuditLogName, number>;
export const AUDIT_CAPS = Symbol('drover.audit-caps');
export const DEFAULT_AUDIT_CAPS: AuditCaps = { principals: 10_000, refused: 1_000 };

/**
 * The audit log: capped Redis streams shared by every api replica, so "who paused nightly?" has
 * one answer whichever replica served the call.
 */
@Injectable()
export class AuditLog {
  private readonly caps: AuditCaps;

  constructor(
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
    @Optional() @Inject(AUDIT_CAPS) caps?: AuditCaps,
  ) {
    this.caps = caps ?? DEFAULT_AUDIT_CAPS;
  }

  private key(log: AuditLogName): string {
    return log === 'principals' ? this.keys.audit() : this.keys.auditRefused();
  }

  /** Writes one entry; every text field is stored with its control characters escaped. */
  async record(e: Omit<AuditEntry, 'id'>, log: AuditLogName = 'principals'): Promise<void> {
    const text = (s: string) => escapeControls(s).slice(0, 1024);
    await this.connections.command.xadd(
      this.key(log),
      'MAXLEN',
      '~',
      this.caps[log],
      '*',
      'at',
      text(e.at),
      'token',
      text(e.token),
      'role',
      text(e.role),
      'action',
      text(e.action),
      'target',
      text(e.target),
      'status',
      String(e.status),
      'ip',
      text(e.ip),
    );
  }

  /** Newest first; `before` (an entry id) pages back. */
  async list(opts: {
    limit: number;
    before?: string;
    log?: AuditLogName;
  }): Promise<{ entries: AuditEntry[]; next?: string }> {
    const end = opts.before ? `(${opts.before}` : '+';
    const rows = (await this.connections.command.xrevrange(
      this.key(opts.log ?? 'principals'),
      end,
      '-',
      'COUNT',
      opts.limit + 1,
    )) as [string, string[]][];
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
