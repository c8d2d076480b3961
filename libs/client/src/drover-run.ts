import type { RunView } from '@drover/store';

declare const resultOfRun: unique symbol;

/**
 * A run id. A plain string at runtime; `enqueue` with a contract returns one that also carries
 * the contract's result type, so `waitForRun(id)` and `getRun(id)` give a typed `result`.
 */
export type RunId<R = unknown> = string & { readonly [resultOfRun]?: R };

/**
 * A run as the client reports it (docs/core.md): status, attempt, error, result, timestamps (epoch ms).
 * `result` is set once the run succeeded, typed when the id came from a contract.
 */
export type DroverRun<R = unknown> = Omit<RunView, 'result'> & { result?: R };
