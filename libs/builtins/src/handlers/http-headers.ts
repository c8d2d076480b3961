import { DROVER_HEADER_NAMES } from '@drover/core';

/** What Drover tells the receiver on every request (docs/api.md), so it can deduplicate. */
export interface DroverHeaderValues {
  runId: string;
  /** Empty for an ad-hoc run. */
  routine: string;
  /** ISO 8601. */
  scheduledFor: string;
  /** 1-based. */
  attempt: number;
  /** A selector routine's candidate key (X-Drover-Key). */
  key?: string;
}

/**
 * The headers a request is sent with: the payload's, then Drover's four. Header names are
 * case-insensitive and fetch joins two spellings of one name into a single `a, b` value, so a
 * payload header that names one of Drover's in any case is dropped, not merged — the receiver
 * must be able to trust them. `contentType` is used only when the payload sets none.
 */
export function requestHeaders(
  payload: Record<string, string>,
  drover: DroverHeaderValues,
  contentType?: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (!DROVER_HEADER_NAMES.has(name.toLowerCase())) out[name] = value;
  }
  if (contentType && !Object.keys(out).some((h) => h.toLowerCase() === 'content-type')) {
    out['content-type'] = contentType;
  }
  out['X-Drover-Run-Id'] = drover.runId;
  out['X-Drover-Routine'] = drover.routine;
  out['X-Drover-Scheduled-For'] = drover.scheduledFor;
  out['X-Drover-Attempt'] = String(drover.attempt);
  if (drover.key !== undefined) out['X-Drover-Key'] = drover.key;
  return out;
}
