// What the faces (api, client, scheduler, worker) and the tests use of the store, by name. A name
// is exported here only once something outside libs/store imports it (index.spec.ts checks both ways).

// Wiring: the Nest module that provides every store, and the factory for callers outside Nest.
export { StoreModule } from './store.module';
export { createStores, type Stores } from './create-stores';

// Routines: definitions and scheduling state and their statistics (a write's errors are core's).
export { RoutineStore, type ApplyDiff } from './routines/routine.store';
export { type RoutineState } from './routines/routine-record';
export { RoutineStatsStore, type StatsBatch } from './routines/routine-stats.store';
export { QueueStatsStore, type QueueStatsBatch } from './queues/queue-stats.store';

// Triggering a routine by hand, a selector routine's key overrides, and why a trigger is refused.
export {
  triggerRoutine,
  clearOverrides,
  RoutineNotTriggerableError,
  TriggerKeyConflictError,
} from './routines/routine-trigger';
export { DuplicateOverrideError } from './errors/duplicate-override.error';

// A selector routine's dry run: the api asks over Redis, a scheduler replica ranks its provider's answer.
export { CandidateProbe, type CandidateRanking } from './routines/candidate-probe';

// Making a run from a routine or a request: its id, open-run tracking, defaults (every producer goes through it).
export {
  adHocRun,
  batchIdOf,
  enqueueAdHoc,
  enqueueBatch,
  enqueueAdHocMany,
  enqueueFlow,
  jobTypeIssue,
  newRunId,
  runOfRoutine,
  slotDedup,
  startOf,
  tracksOpenRuns,
  type AdHocItem,
  type AdHocOutcome,
  type FlowItem,
  type FlowRunIds,
  type RunStart,
} from './run-maker';

// Runs: creating, reading and cancelling them, and the view every face shows of one.
export { RunStore, type CancelOutcome, type CancelResult } from './runs/run.store';
export { KEY_UNLIMITED } from './runs/keyed-runs';
export { NotAwaitingApprovalError } from './runs/not-awaiting-approval.error';
export { type NewRun, type SkippedRun } from './runs/new-run';
export { attemptOf, type RunView } from './runs/run-view';
export { RUN_LOG_PAGE_MAX, type RunLogPage } from './runs/run-logs';
export { INLINE_CAP_BYTES } from './runs/lean-jobs';
export { ProducerCodes } from './runs/producer-codes';
export { RunCheckpoints } from './runs/run-checkpoints';

// Flows: a run that starts once its children (on any queues) finished.
export { type FlowChildOutcome, type NewFlow, type RunFlows } from './runs/run-flows';
export { PARENT_CANCELED_REASON } from './runs/run-cancel';
export { FlowParentNotReplayableError } from './runs/flow-parent-not-replayable.error';

// What a worker reads and writes on a run's job: its data, attempts and cancel requests.
export {
  canceledMarker,
  isCanceledMarker,
  runJobDataOf,
  type CanceledMarker,
  type RunJobData,
} from './runs/run-job-data';
export { decodeAttempts, encodeAttempt, type AttemptRecord } from './runs/attempt-log';
export { cancelChannel, decodeCancel } from './runs/cancel-channel';

// Batches: runs written together, counted as they settle, with callbacks once all settled.
export { BatchStore } from './batches/batch.store';
export { type BatchView } from './batches/batch-view';

// Parked runs (given up on, waiting for an operator).
export { NotParkedError, type ParkedCursor, type ParkedRun } from './runs/parked.store';

// Queues: the registry of definitions, their BullMQ queues, counts and events.
export { BullQueues } from './queues/bull-queues';
export { QueueRegistry, UnknownQueueError, type QueueRecord } from './queues/queue-registry.store';
export { QueueEventHub, type QueueEvent } from './queues/queue-event-hub';
export { QUEUE_COUNT_STATES, readAwaitingApproval, readQueueCounts, workersConsuming } from './queues/queue-counts';

// Slots: the claim that makes each scheduled slot fire at most once, and what was decided for it.
export { SlotClaims, type CursorNext } from './slots/slot-claims.store';
export { SlotSkips } from './routines/slot-skips.store';
export { skipSlot, unskipSlot } from './routines/slot-skip';
export {
  ARMED_CLAIM_MS,
  DONE_CLAIM_MS,
  PENDING_WINDOW_MS,
  withinPendingWindow,
  type ArmedEntry,
  type SlotClaim,
} from './slots/slot-claim';
export { type SlotDecision } from './slots/slot-decision';

// The scheduler's internal fires queue: its jobs, their ids and options.
export {
  FIRES_QUEUE,
  FIRE_JOB_OPTS,
  FIRE_KEEP,
  FIRE_RETRY,
  armFireJobId,
  fireOfJob,
  onceFireJobId,
  refireJobId,
  repairFireJobId,
  requestRefire,
  requestRepair,
  type FireJobData,
  type FireRequest,
} from './fires/fire-jobs';

// The cluster: live processes, what workers consume, and the plan (what fires or runs next, and why).
export { ProcessCatalog, type ProcessEntry } from './cluster/process-catalog.store';
export { ProcessPresence } from './cluster/process-presence';
export { WorkerCatalog, type WorkerCatalogEntry } from './workers/worker-catalog.store';
export { PlanService, type ClusterPlan } from './plan/plan.service';

// Reading big Redis structures a thousand at a time, yielding to the event loop as it goes.
export { hscanAll, pacer, zscanMembers } from './bulk-reads';

// The api's own state: console sessions, the audit log, bulk operations and the event channel.
export { SessionStore, type Session } from './api/session.store';
export { AuditLog, AUDIT_LOGS, AUDIT_CAPS, type AuditCaps, type AuditLogName } from './api/audit-log.store';
export { OperationStore, OPERATION_HEARTBEAT_MS, type Operation, type OperationKind } from './api/operation.store';
export { ApiEvents, type ApiEvent, type ApiEventKind } from './api/api-events';

// What the scheduler's dispatcher announces when it changes a routine itself.
export { RoutineChanges } from './routines/routine-changes';
export { RoutineIndex, type DueEntry } from './routines/routine-index';
