import { z } from 'zod';
import { shownKey } from '@drover/core';
import type { ApiEvent, ApiEventKind } from '@drover/store';

export const API_EVENT_KINDS: readonly ApiEventKind[] = ['run', 'routine', 'queue', 'operation'];

/** Which events a console asked for: some kinds, and (optionally) one queue. */
export interface EventFilter {
  kinds: ReadonlySet<ApiEventKind>;
  queue?: string;
}

/** `?kinds=run,routine`: a comma-separated list of kinds, each checked ("did you mean" by listing them). */
export const kindsQuerySchema = z
  .string()
  .transform((raw, ctx) => {
    const kinds = raw
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const bad = kinds.filter((k) => !API_EVENT_KINDS.includes(k as ApiEventKind));
    if (bad.length > 0 || kinds.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: `${
          bad.length
            ? `unknown kind ${bad
                .slice(0, 5)
                .map((k) => JSON.stringify(shownKey(k)))
                .join(', ')}`
            : 'is empty'
        }; use a comma-separated list of ${API_EVENT_KINDS.join(', ')}`,
      });
      return z.NEVER;
    }
    return kinds as ApiEventKind[];
  })
  .meta({ description: `Comma-separated event kinds (${API_EVENT_KINDS.join(', ')}); default all` });

/** The queue an event is about, if it names one. */
export function queueOf(e: ApiEvent): string | undefined {
  if (e.kind === 'queue') return e.id === '*' ? undefined : e.id;
  const q = e.data?.queue;
  return typeof q === 'string' ? q : undefined;
}

/**
 * Whether a console with `filter` gets the event: its kind is asked for, and with a queue filter
 * it does not name another queue (events that name no queue — routine changes, a change of the
 * queue policies as a whole — pass). Pure.
 */
export function matchesFilter(e: ApiEvent, filter: EventFilter): boolean {
  if (!filter.kinds.has(e.kind)) return false;
  if (filter.queue === undefined) return true;
  const q = queueOf(e);
  return q === undefined || q === filter.queue;
}

export function eventFilter(kinds: ApiEventKind[] | undefined, queue: string | undefined): EventFilter {
  return { kinds: new Set(kinds ?? API_EVENT_KINDS), ...(queue !== undefined && { queue }) };
}
