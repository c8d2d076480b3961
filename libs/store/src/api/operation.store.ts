import { Injectable } from '@nestjs/common';
import { DroverKeys, RedisConnections } from '@drover/redis';

/**
 * Which parked runs an operation concerns, as it was given (the api's parked filter): instants are
 * ISO 8601 text. The api validates it; the store keeps it as JSON.
 */
export interface OperationFilter {
  jobType?: string;
  routine?: string;
  error?: string;
  before?: string;
  after?: string;
}

export type OperationKind = 'replay' | 'purge';
/** `abandoned` is never stored: it is how a `running` operation reads once its heartbeat is stale. */
export type OperationStatus = 'running' | 'done' | 'failed' | 'abandoned';

/** A bulk operation on a queue's parked area. Times are epoch ms (GET /operations/{id} shows them as ISO 8601). */
export interface Operation {
  id: string;
  kind: OperationKind;
  queue: string;
  status: OperationStatus;
  filter: OperationFilter;
  ratePerSecond: number;
  /** Parked runs the filter selected when the operation started. */
  matched: number;
  /** Runs handled so far: replayed or purged, skipped (gone meanwhile) or failed. */
  done: number;
  skipped: number;
  failed: number;
  /** The last failure's message, if any run failed (or why the operation stopped). */
  error?: string;
  /** Token name that started it, and the api instance that runs it. */
  by: string;
  instance: string;
  startedAt: number;
  heartbeatAt: number;
  finishedAt?: number;
}

/** How long an operation's record is kept after its last write. */
export const OPERATION_TTL_MS = 24 * 3_600_000;
/** A running operation refreshes its record this often... */
export const OPERATION_HEARTBEAT_MS = 500;
/** ...and reads as `abandoned` once its record is this old (its api process died). */
export const OPERATION_STALE_MS = 10_000;

const COUNTERS = ['matched', 'done', 'skipped', 'failed', 'ratePerSecond', 'startedAt', 'heartbeatAt'] as const;

/**
 * Bulk operations in Redis, one small hash each with a TTL, so any api replica answers for an
 * operation another one runs, and a dead replica's operation is seen as such.
 */
@Injectable()
export class OperationStore {
  constructor(
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
  ) {}

  private key(id: string): string {
    return this.keys.operation(id);
  }

  async write(op: Partial<Operation> & { id: string }): Promise<void> {
    const { id, filter, ...rest } = op;
    const fields: Record<string, string> = { id };
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) fields[k] = String(v);
    if (filter) fields.filter = JSON.stringify(filter);
    await this.connections.command.multi().hset(this.key(id), fields).pexpire(this.key(id), OPERATION_TTL_MS).exec();
  }

  /** The operation, or undefined (unknown or expired). `now` decides whether a running one is abandoned. */
  async get(id: string, now: number): Promise<Operation | undefined> {
    const h = await this.connections.command.hgetall(this.key(id));
    if (!h.id) return undefined;
    const n = Object.fromEntries(COUNTERS.map((k) => [k, Number(h[k] ?? 0)])) as Record<
      (typeof COUNTERS)[number],
      number
    >;
    const stale = h.status === 'running' && now - n.heartbeatAt > OPERATION_STALE_MS;
    return {
      id: h.id,
      kind: h.kind as OperationKind,
      queue: h.queue ?? '',
      status: stale ? 'abandoned' : (h.status as OperationStatus),
      filter: JSON.parse(h.filter ?? '{}') as OperationFilter,
      ...n,
      ...(h.error && { error: h.error }),
      by: h.by ?? '',
      instance: h.instance ?? '',
      ...(h.finishedAt && { finishedAt: Number(h.finishedAt) }),
    };
  }
}
