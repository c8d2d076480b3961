import { z } from 'zod';
import { parseIsoInstant } from './iso-instant';
import { boundedString, MAX_INSTANT_LENGTH, MAX_PAUSE_NOTE_LENGTH } from './limits';

/** Why and until when a routine is paused, as recorded with it. Times are epoch ms. */
export interface Pause {
  /** When it was paused. */
  at: number;
  /** Who paused it (an API token's name, "client", "file"). */
  by?: string;
  note?: string;
  /** It resumes by itself at this instant. */
  until?: number;
}

/** What a pause request may carry (an API body, a CLI's flags). */
export const pauseRequestSchema = z.strictObject({
  note: boundedString(MAX_PAUSE_NOTE_LENGTH).optional(),
  /** ISO 8601 instant with an offset, e.g. `2026-12-24T18:00:00Z`. */
  until: boundedString(MAX_INSTANT_LENGTH)
    .refine((s) => parseIsoInstant(s) !== undefined, {
      message: 'must be an ISO 8601 instant with an offset, e.g. "2026-12-24T18:00:00Z"',
    })
    .optional(),
});
export type PauseRequest = z.infer<typeof pauseRequestSchema>;

/**
 * The pause a request makes at `now`, or why it cannot (`field` names the culprit): a note over
 * {@link MAX_PAUSE_NOTE_LENGTH}, or an `until` that is not after `now` (it would resume the
 * routine at once). Pure.
 */
export function pauseFromRequest(
  req: { note?: string; until?: number },
  now: number,
  by?: string,
): { ok: true; pause: Pause } | { ok: false; field: 'note' | 'until'; error: string } {
  if (req.note !== undefined && req.note.length > MAX_PAUSE_NOTE_LENGTH) {
    return {
      ok: false,
      field: 'note',
      error: `note has ${req.note.length} characters; the limit is ${MAX_PAUSE_NOTE_LENGTH}`,
    };
  }
  if (req.until !== undefined && req.until <= now) {
    return {
      ok: false,
      field: 'until',
      error: `until must be in the future (it is ${new Date(req.until).toISOString()})`,
    };
  }
  const note = req.note?.trim();
  return {
    ok: true,
    pause: { at: now, ...(by && { by }), ...(note && { note }), ...(req.until !== undefined && { until: req.until }) },
  };
}

/** Whether a paused routine is due to resume by itself at `now`. Pure. */
export function pauseExpired(pause: Pause | undefined, now: number): boolean {
  return pause?.until !== undefined && pause.until <= now;
}
