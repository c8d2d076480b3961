import { InvalidPayloadError } from '../errors/invalid-payload.error';
import { checkPayload } from '../model/payload.policy';
import type { JobContract } from './job-contract';

/**
 * Checks an enqueue request's payload before anything is written (the client and the api alike): against the contract's schema when there is one
 * (async refinements allowed), then that it is plain JSON within the size limit (what the store
 * and the worker can carry). Throws {@link InvalidPayloadError} with every problem found.
 * The caller stores the payload as given: the worker parses it with the same schema, so
 * defaults and transforms apply exactly once, on the handler's side.
 */
export function validatePayload(jobType: string, contract: JobContract, payload: unknown): Promise<void>;
export function validatePayload(jobType: string, contract: undefined, payload: unknown): void;
export function validatePayload(
  jobType: string,
  contract: JobContract | undefined,
  payload: unknown,
): Promise<void> | void {
  if (contract) return validateWithContract(jobType, contract, payload);
  checkPlainJson(jobType, payload);
}

async function validateWithContract(jobType: string, contract: JobContract, payload: unknown): Promise<void> {
  {
    const res = await contract.payload.safeParseAsync(payload);
    if (!res.success) {
      throw new InvalidPayloadError(
        jobType,
        res.error.issues.map((i) => ({
          path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
          message: i.message,
        })),
      );
    }
  }
  checkPlainJson(jobType, payload);
}

function checkPlainJson(jobType: string, payload: unknown): void {
  const issues = checkPayload(payload);
  if (issues.length) throw new InvalidPayloadError(jobType, issues);
}
