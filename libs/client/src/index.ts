export * from './drover.module';
export { DROVER_ASYNC_OPTIONS_TYPE, DROVER_MODULE_OPTIONS, DROVER_OPTIONS_TYPE } from './drover.module-definition';
export * from './drover-options';
export * from './drover-client.service';
export * from './drover-run';
export type { BatchOptions, DroverBatch } from './drover-batch';
export type { EnqueueOptions, ListRunsOptions, WaitOptions } from './call-options';
export * from './errors/run-wait-timeout.error';
export { NotReplicatedError } from '@drover/redis';
// What a producer needs from the rest of Drover, so `@drover/client` is the only import: every
// error a call may throw is here too, so `instanceof` works with this import alone.
export {
  defineJob,
  DroverError,
  IdempotencyKeyConflictError,
  InvalidOptionsError,
  InvalidPayloadError,
  InvalidRoutineError,
  RedisOutOfMemoryError,
  RoutineArchivedError,
  RoutineNotFoundError,
  RoutineVersionConflictError,
  RunNotFoundError,
  UnknownJobTypeError,
  type DroverErrorCode,
  type PayloadIssue,
  type JobContract,
  type JobContractSchemas,
  type PayloadInputOf,
  type PayloadOf,
  type ResultOf,
  type Priority,
  type Routine,
  type RoutineInput,
  type RoutineRecord,
  type RunStatus,
  type RunSource,
} from '@drover/core';
export {
  DuplicateOverrideError,
  NotAwaitingApprovalError,
  RoutineNotTriggerableError,
  UnknownQueueError,
  type CancelOutcome,
  type CancelResult,
  type RunView,
} from '@drover/store';
export type { DroverFlowChild, DroverFlowIds, FlowNode } from './drover-flow';
