import { SLOT_FATES } from '@drover/core/words';
import type { Schemas } from '../api';
import { when } from '../format';
import { Link } from './link';

type Ledger = Schemas['SlotLedger'];
type Slot = Ledger['items'][number];

/** What a cell says, for its hover title and for screen readers: the exact time, the fate and why. */
export function slotText(s: Slot): string {
  const run = s.runs[0];
  const what =
    s.fate === 'ran' && run
      ? `ran: ${run.status}, ${run.attempt} attempt${run.attempt === 1 ? '' : 's'}${s.runs.length > 1 ? ` (+${s.runs.length - 1} more)` : ''}`
      : s.reason
        ? `${s.fate}: ${s.detail ?? s.reason}${s.recorded ? '' : ' (inferred: no fire while paused)'}`
        : s.fate;
  // A routine with a `triggers` list names the trigger each slot came from.
  const from = s.trigger !== undefined ? ` (trigger ${s.trigger})` : '';
  return `${when(s.slot)}${from} — ${what}${s.onSchedule ? '' : ' — not on the current schedule'}`;
}

/**
 * The routine's history strip: its slot ledger, one cell per slot (oldest first) coloured by fate,
 * each with its exact time and fate on hover and as text for screen readers; a cell that ran links
 * to its run. Shows that no slot was lost (a gap would be a red `no-record` cell) or doubled.
 */
export function SlotStrip({ ledger }: { ledger: Ledger }) {
  const counts = SLOT_FATES.filter((f) => (ledger.counts[f] ?? 0) > 0);
  return (
    <figure class="slot-ledger">
      <ol class="slot-strip" aria-label={`Slot ledger of ${ledger.routine}: the last ${ledger.items.length} slots`}>
        {ledger.items.map((s) => {
          const text = slotText(s);
          const cell = <span class="sr-only">{text}</span>;
          return (
            <li key={s.slot} class={`slot f-${s.fate}`} title={text} data-fate={s.fate}>
              {s.fate === 'ran' && s.runs[0] ? (
                <Link to={`/runs/${encodeURIComponent(s.runs[0].id)}`}>{cell}</Link>
              ) : (
                cell
              )}
            </li>
          );
        })}
      </ol>
      <figcaption class="muted small">
        slots from {when(ledger.from)} to {when(ledger.to)}:{' '}
        {counts.map((f, k) => (
          <span key={f}>
            {k > 0 && ' · '}
            <span class={`slot-key f-${f}`} aria-hidden="true" /> {ledger.counts[f]} {f}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
