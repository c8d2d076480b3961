import { FORM_TRIGGERS, triggerOfKind, withField, type Draft, type FormTrigger } from './draft';

const value = (e: Event) => (e.target as HTMLInputElement).value;

/**
 * The common fields of a routine as a form over the draft: name (new routines only), job type,
 * queue, one trigger (cron, interval or manual) and the payload. Everything else is kept as it is
 * and edited in the JSON tab; a routine with a list of triggers edits them there too.
 */
export function RoutineForm({
  draft,
  creating,
  queues,
  onChange,
}: {
  draft: Draft;
  creating: boolean;
  queues: string[];
  onChange: (d: Draft) => void;
}) {
  const set = (key: string, v: unknown) => onChange(withField(draft, key, v));
  const trigger = (draft.trigger ?? {}) as Record<string, unknown>;
  const kind = trigger.kind as string | undefined;
  const setTrigger = (key: string, v: unknown) => set('trigger', withField(trigger, key, v));
  const payloadText = draft.payload === undefined ? '' : JSON.stringify(draft.payload, null, 2);
  return (
    <div class="routine-form">
      <label>
        Name
        <input
          value={String(draft.name ?? '')}
          required
          readOnly={!creating}
          aria-readonly={!creating}
          onInput={(e) => set('name', value(e))}
        />
      </label>
      <label>
        Job type
        <input value={String(draft.jobType ?? '')} required onInput={(e) => set('jobType', value(e))} />
      </label>
      <label>
        Queue
        <select value={String(draft.queue ?? '')} onChange={(e) => set('queue', value(e))}>
          {[...new Set([String(draft.queue ?? ''), ...queues])].map((q) => (
            <option key={q} value={q}>
              {q || '—'}
            </option>
          ))}
        </select>
      </label>
      {draft.triggers !== undefined ? (
        <p class="muted">This routine has several triggers: edit them in the JSON tab.</p>
      ) : (
        <>
          <label>
            Trigger
            <select
              value={kind ?? ''}
              onChange={(e) => set('trigger', triggerOfKind(value(e) as FormTrigger, trigger))}
            >
              {!FORM_TRIGGERS.includes(kind as FormTrigger) && <option value={kind ?? ''}>{kind ?? '—'}</option>}
              {FORM_TRIGGERS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          {kind === 'cron' && (
            <>
              <label>
                Cron expression
                <input value={String(trigger.cron ?? '')} onInput={(e) => setTrigger('cron', value(e))} />
              </label>
              <label>
                Time zone
                <input
                  value={String(trigger.tz ?? '')}
                  placeholder="UTC"
                  onInput={(e) => setTrigger('tz', value(e) || undefined)}
                />
              </label>
            </>
          )}
          {kind === 'interval' && (
            <label>
              Every (ms)
              <input
                type="number"
                min={1}
                value={String(trigger.everyMs ?? '')}
                onInput={(e) => setTrigger('everyMs', Number(value(e)))}
              />
            </label>
          )}
        </>
      )}
      <PayloadField text={payloadText} onChange={(p) => set('payload', p)} />
    </div>
  );
}

/** The payload as JSON text; it reaches the draft only when it parses (empty: no payload). */
function PayloadField({ text, onChange }: { text: string; onChange: (payload: unknown) => void }) {
  return (
    <label class="wide">
      Payload (JSON)
      <textarea
        rows={4}
        spellcheck={false}
        value={text}
        onInput={(e) => (e.target as HTMLTextAreaElement).setCustomValidity('')}
        onChange={(e) => {
          const t = value(e).trim();
          if (!t) return onChange(undefined);
          try {
            onChange(JSON.parse(t));
          } catch {
            // Left for the JSON tab and the api's validation to name: the draft keeps the last valid payload.
            (e.target as HTMLTextAreaElement).setCustomValidity('not valid JSON');
            (e.target as HTMLTextAreaElement).reportValidity();
          }
        }}
      />
    </label>
  );
}
