/**
 * Core's words: the statuses, kinds, origins and defaults every face shares, defined once here and
 * imported everywhere else (never restated as a literal list). Nothing reached from this file
 * imports anything, so the CLI (at start-up) and the web console (in its bundle) take it by the
 * `@drover/core/words` alias without loading zod or cron-parser; `@drover/core` re-exports it.
 */
export * from './run/run-status';
export * from './run/attempt-failure-kind';
export * from './run/approval-state';
export * from './model/routine-status';
export * from './model/priority-name';
export * from './model/origin';
export * from './model/queue-defaults';
export * from './policy/candidate-verdict';
export * from './schedule/slot-fate';
export * from './batch/batch-words';
export * from './flow/flow-words';
