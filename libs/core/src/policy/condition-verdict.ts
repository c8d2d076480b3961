/**
 * The verdict of a built-in condition kind: `run` true enqueues, false skips the slot (healthy);
 * `error` is a launch failure (backoff, then disable after `maxLaunchFailures`).
 */
export type KindVerdict = { run: boolean } | { error: string };

/** The answer an `http` condition reads, at most: `{"run": true}` with room to spare. */
export const HTTP_CONDITION_MAX_BYTES = 64 * 1024;

/**
 * What an `http` condition's answer means: a 2xx whose body is JSON `{"run": true|false}` (other
 * members are ignored) decides; any other status, an answer over {@link HTTP_CONDITION_MAX_BYTES}
 * or another body is a launch failure that says which. Redirects are answers, never followed.
 */
export function httpConditionVerdict(status: number, body: string, truncated: boolean): KindVerdict {
  if (status < 200 || status > 299) {
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    return { error: `answered ${status}${redirect}; a condition answers 2xx with {"run": true|false}` };
  }
  if (truncated) return { error: `the answer is over ${HTTP_CONDITION_MAX_BYTES} bytes` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { error: `answered ${status} with a body that is not JSON; expected {"run": true|false}` };
  }
  const run =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { run?: unknown }).run : undefined;
  if (typeof run !== 'boolean') {
    return { error: `answered ${status} without a boolean "run"; expected {"run": true|false}` };
  }
  return { run };
}

/** A `queue-depth` condition runs while the queue holds fewer than `below` waiting runs. */
export function queueDepthVerdict(waiting: number, below: number): KindVerdict {
  return { run: waiting < below };
}
