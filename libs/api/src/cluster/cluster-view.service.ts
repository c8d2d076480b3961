import { Injectable } from '@nestjs/common';
import { Clock, DroverKeys, RedisConnections } from '@drover/redis';
import { ProcessCatalog, WorkerCatalog, type ProcessEntry } from '@drover/store';
import { isoOf, optIso } from '../http/api-time';
import { ApiPresence } from './api-presence.service';

/** The leader lease's value: `<instance>|<nonce>|<epoch>` (see the scheduler's LeaderElector). */
export function parseLeaderLease(value: string): { instance: string; nonce: string; epoch: number } | undefined {
  const parts = value.split('|');
  if (parts.length < 3) return undefined;
  const epoch = Number(parts[parts.length - 1]);
  if (!Number.isSafeInteger(epoch)) return undefined;
  return { instance: parts.slice(0, -2).join('|'), nonce: parts[parts.length - 2]!, epoch };
}

const processView = ({ instanceId, version, pid, hostname, startedAt, heartbeatAt }: ProcessEntry) => ({
  instanceId,
  version,
  pid,
  hostname,
  startedAt: isoOf(startedAt),
  heartbeatAt: isoOf(heartbeatAt),
});

/**
 * Who is in the cluster: the leader (from its lease, with since when from its own catalog entry),
 * the schedulers and api processes (process catalog) and the workers (worker catalog).
 */
@Injectable()
export class ClusterView {
  constructor(
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly processes: ProcessCatalog,
    private readonly workers: WorkerCatalog,
    private readonly self: ApiPresence,
    private readonly clock: Clock,
  ) {}

  async read() {
    const leaderKey = this.keys.leader();
    const [lease, schedulers, workers, apis] = await Promise.all([
      this.connections.command.multi().get(leaderKey).pttl(leaderKey).exec(),
      this.processes.list('scheduler'),
      this.workers.list(),
      this.processes.list('api'),
    ]);
    const value = lease?.[0]?.[1];
    const ttl = Number(lease?.[1]?.[1] ?? -2);
    const held = typeof value === 'string' ? parseLeaderLease(value) : undefined;
    const leaderEntry = held && schedulers.find((s) => s.instanceId === held.instance && s.nonce === held.nonce);
    const since = leaderEntry?.leader?.epoch === held?.epoch ? leaderEntry?.leader?.since : undefined;
    return {
      now: isoOf(this.clock.now()),
      leader: held
        ? {
            instance: held.instance,
            epoch: held.epoch,
            ...optIso('since', since),
            leaseExpiresInMs: Math.max(0, ttl),
          }
        : null,
      schedulers: schedulers.map((s) => ({
        ...processView(s),
        leader: !!held && s.instanceId === held.instance && s.nonce === held.nonce,
      })),
      workers: workers.map((w) => ({
        instanceId: w.instanceId,
        version: w.version,
        pid: w.pid,
        hostname: w.hostname,
        startedAt: isoOf(w.startedAt),
        heartbeatAt: isoOf(w.heartbeatAt),
        draining: w.draining,
        queues: w.queues,
        jobTypes: w.jobTypes,
      })),
      apis: apis.map((a) => ({
        ...processView(a),
        self: a.instanceId === this.self.instanceId && a.nonce === this.self.nonce,
      })),
    };
  }
}
