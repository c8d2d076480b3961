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

  /**
   * Newest first; `before` (an entry id) pages back. `filter` keeps the entries whose token,
   * action and target contain the words given (case-insensitive) at or after `from` and before
   * `to` (epoch ms: the stream ids are the time). A filtered page reads at most `AUDIT_SCAN`
   * entries: when they hold fewer matches than `limit`, `next` still says where to go on, so
   * a rare match costs the caller more pages, never the api an unbounded scan.
   */
  async list(opts: {
    limit: number;
    before?: string;
    log?: AuditLogName;
    filter?: AuditFilter;
  }): Promise<{ entries: AuditEntry[]; next?: string }> {
    const f = opts.filter ?? {};
    const key = this.key(opts.log ?? 'principals');
    const start = f.from === undefined ? '-' : `${f.from}-0`;
    let end = opts.before ? `(${opts.before}` : f.to === undefined ? '+' : `(${f.to}-0`;
    if (opts.before && f.to !== undefined && compareIds(opts.before, `${f.to}-0`) > 0) end = `(${f.to}-0`;
    const matches = auditMatcher(f);
    const entries: AuditEntry[] = [];
    let scanned = 0;
    let last: string | undefined;
    for (;;) {
      const count = matches ? Math.min(AUDIT_CHUNK, AUDIT_SCAN - scanned) : opts.limit + 1 - entries.length;
      const rows = (await this.connections.command.xrevrange(key, end, start, 'COUNT', count)) as [string, string[]][];
      for (const [id, fields] of rows) {
        scanned++;
        const e = entryOf(id, fields);
        if (matches && !matches(e)) {
          last = id;
          continue;
        }
        if (entries.length === opts.limit) return { entries, next: entries[entries.length - 1]!.id };
        entries.push(e);
        last = id;
      }
      if (rows.length < count) return { entries };
      if (!matches) return { entries };
      if (scanned >= AUDIT_SCAN) return { entries, next: last };
      end = `(${rows[rows.length - 1]![0]}`;
    }
  }
}

/** What an audit page may be narrowed to; every word must be found in its field. */
export interface AuditFilter {
  token?: string;
  action?: string;
  target?: string;
  from?: number;
  to?: number;
}

/** Entries read per round trip of a filtered page, and at most per page. */
const AUDIT_CHUNK = 500;
const AUDIT_SCAN = 5_000;

function auditMatcher(f: AuditFilter): ((e: AuditEntry) => boolean) | undefined {
  const words = (['token', 'action', 'target'] as const)
    .filter((k) => f[k])
    .map((k) => [k, f[k]!.toLowerCase()] as const);
  if (!words.length) return undefined;
  return (e) => words.every(([k, w]) => e[k].toLowerCase().includes(w));
}

/** Orders two stream ids (`<ms>-<seq>`). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
}

function entryOf(id: string, fields: string[]): AuditEntry {
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
}
