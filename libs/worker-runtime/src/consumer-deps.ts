import type { Logger } from 'pino';
import type { Random } from '@drover/core';
import type { Clock, DroverKeys, RedisConnections } from '@drover/redis';
import type { BullQueues, ProducerCodes, RunCheckpoints, RunFlows, SlotClaims } from '@drover/store';
import type { HandlerRegistry } from './handler-registry.service';
import type { PendingCancels } from './pending-cancels';
import type { RoutineStatsRecorder } from './routine-stats-recorder';
import type { RunMetrics } from './run-metrics';
import type { SettleBatchRun } from './batch-settle';
import type { SettleKeyedRun } from './keyed-settle';

/** What a QueueConsumer is built with: the process's shared services, one set for every queue it consumes. */
export interface ConsumerDeps {
  connections: RedisConnections;
  keys: DroverKeys;
  bull: BullQueues;
  handlers: HandlerRegistry;
  metrics: RunMetrics;
  /** Per-routine run statistics (batched; see RoutineStatsRecorder). */
  stats: RoutineStatsRecorder;
  log: Logger;
  instanceId: string;
  pendingCancels: PendingCancels;
  claims: SlotClaims;
  clock: Clock;
  /** Draws the retry jitter. */
  random: Random;
  /** The names of the producer codes runs carry (one per process). */
  producers: ProducerCodes;
  /** Runs' checkpoints: written by `ctx.checkpoint`, read at the start of an attempt of a run that has one. */
  checkpoints: RunCheckpoints;
  /** A flow's children as their parent's handler reads them (`ctx.children()`). */
  flows?: Pick<RunFlows, 'outcomes' | 'addChildren'>;
  /** How long before its slot an armed run may reach this worker (DROVER_ARM_LEAD_MS). */
  armLeadMs: number;
  /** Starts a buffer-one routine's buffered run once its active run ended (RunStore.startBuffered). */
  startBuffered?: (routine: string) => Promise<unknown>;
  /** Counts a settled run of a batch (BatchStore.settle). */
  settleBatchRun?: SettleBatchRun;
  /** Frees a settled keyed run's place (KeyedRuns.settle). */
  settleKeyedRun?: SettleKeyedRun;
  /** Heals a queue's per-key places (KeyedRuns.repair), on the janitor's pass. */
  repairKeys?: (queue: string, limit: number) => Promise<unknown>;
}
