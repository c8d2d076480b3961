// "Routine or request → new run": every producer (scheduler, trigger, backfill, replay, api, client) makes its runs here.
export { newRunId, type RunIdOf } from './run-id';
export { tracksOpenRuns, type OpenRunFacts } from './open-runs';
export { overrideDedup, runOfRoutine, slotDedup, type RoutineRunSpec } from './routine-run';
export {
  adHocRun,
  jobTypeIssue,
  keyConflict,
  startOf,
  type AdHocRequest,
  type KeyConflict,
  type RunStart,
} from './ad-hoc-run';
export { enqueueAdHoc, enqueueAdHocMany, type AdHocItem, type AdHocOutcome } from './ad-hoc-enqueue';
export { replayRunOf } from './replay-run';
export { batchCallbackRun, batchIdOf, inBatch } from './batch-runs';
export { enqueueBatch } from './batch-enqueue';
export { enqueueFlow, type FlowItem, type FlowRunIds } from './flow-enqueue';
