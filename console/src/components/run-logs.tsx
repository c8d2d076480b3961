import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../api';
import { when } from '../format';

type LogLine = Schemas['RunLogLine'];

/** Lines the panel holds at most (a followed run may write more than its queue keeps). */
const SHOWN_MAX = 2_000;

type Follow = 'following' | 'ended' | 'reconnecting';

/**
 * A run's log (`ctx.log`) over `GET /api/v1/runs/{id}/logs/stream`: the kept lines first, then new
 * ones while the run is active; closed on `end` (the run settled, its last lines sent), since an
 * EventSource would otherwise reconnect for ever. A reconnect resumes after the last line seen
 * (the browser sends its `Last-Event-ID`, the line's number).
 */
function useRunLogs(id: string): { lines: LogLine[]; follow: Follow } {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [follow, setFollow] = useState<Follow>('following');
  useEffect(() => {
    setLines([]);
    setFollow('following');
    const source = new EventSource(`/api/v1/runs/${encodeURIComponent(id)}/logs/stream`);
    // Lines arrive in bursts (a settled run's whole log at once): drawn once per frame.
    let pending: LogLine[] = [];
    let frame = 0;
    const flush = () => {
      frame = 0;
      const add = pending;
      pending = [];
      setLines((shown) => [...shown, ...add].slice(-SHOWN_MAX));
    };
    source.addEventListener('line', (m) => {
      pending.push(JSON.parse((m as MessageEvent<string>).data) as LogLine);
      frame ||= requestAnimationFrame(flush);
    });
    const end = () => {
      source.close();
      setFollow('ended');
    };
    source.addEventListener('end', end);
    source.onopen = () => setFollow('following');
    source.onerror = () => (source.readyState === EventSource.CLOSED ? end() : setFollow('reconnecting'));
    return () => {
      source.close();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [id]);
  return { lines, follow };
}

/** The lines its handler wrote, oldest first, following live while the run is active. */
export function RunLogs({ id }: { id: string }) {
  const { lines, follow } = useRunLogs(id);
  const box = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  // Keeps the newest line in view unless the reader scrolled up to read older ones.
  useEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [lines]);
  const gone = (lines[0]?.seq ?? 1) - 1;
  return (
    <section aria-labelledby="run-logs-title">
      <h2 id="run-logs-title">
        Logs{' '}
        <span class="muted small">
          {follow === 'following' ? 'following live' : follow === 'ended' ? 'complete' : 'reconnecting…'}
        </span>
      </h2>
      {gone > 0 && (
        <p class="muted small">
          {gone} earlier line{gone === 1 ? '' : 's'} no longer kept (the queue keeps its runs' newest lines:
          retention.logLines).
        </p>
      )}
      {lines.length === 0 ? (
        <p class="muted" data-testid="run-logs-empty">
          {follow === 'ended' ? 'This run wrote no log lines (ctx.log).' : 'No log lines yet.'}
        </p>
      ) : (
        <div
          ref={box}
          class="log-lines"
          role="log"
          aria-label={`log of run ${id}`}
          tabIndex={0}
          data-testid="run-logs"
          onScroll={(e) => {
            const el = e.currentTarget;
            stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
          }}
        >
          {lines.map((l) => (
            <div key={l.seq} class="log-line">
              {l.at && <span class="muted">{when(l.at)} </span>}
              <span>{l.message}</span>
              {l.fields && <span class="muted"> {JSON.stringify(l.fields)}</span>}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
