import { useEffect, useRef, useState } from 'preact/hooks';

/** One change from `GET /api/v1/events`: a nudge to re-read, never the truth itself. */
export interface LiveEvent {
  kind: 'run' | 'routine' | 'queue' | 'operation';
  action: string;
  id: string;
  at: string;
  data?: Record<string, unknown>;
}

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'offline';

type Listener = (e: LiveEvent | 'resync') => void;

/**
 * The console's one connection to the cluster feed, shared by every page. The browser's
 * EventSource reconnects by itself; the feed has no replay, so a reconnect tells every listener
 * to re-read what it shows ('resync').
 */
class LiveFeed {
  private source?: EventSource;
  private readonly listeners = new Set<Listener>();
  private readonly stateListeners = new Set<(c: Connection) => void>();
  private readonly lostListeners = new Set<() => void>();
  private wasOpen = false;
  state: Connection = 'offline';

  start(): void {
    if (this.source) return;
    this.setState('connecting');
    const source = new EventSource('/api/v1/events');
    this.source = source;
    source.onopen = () => {
      if (this.wasOpen) this.listeners.forEach((l) => l('resync'));
      this.wasOpen = true;
      this.setState('live');
    };
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) return this.setState('reconnecting');
      // The browser gave up (an answer other than an event stream, e.g. a 401): not retrying.
      this.stop();
      this.lostListeners.forEach((l) => l());
    };
    for (const kind of ['run', 'routine', 'queue', 'operation']) {
      source.addEventListener(kind, (msg) => {
        try {
          const e = JSON.parse((msg as MessageEvent<string>).data) as LiveEvent;
          this.listeners.forEach((l) => l(e));
        } catch {
          /* a malformed event is only a missed nudge */
        }
      });
    }
  }

  stop(): void {
    this.source?.close();
    this.source = undefined;
    this.wasOpen = false;
    this.setState('offline');
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }

  /** Called when the browser stops retrying by itself, most often because the session ended. */
  onLost(l: () => void): () => void {
    this.lostListeners.add(l);
    return () => void this.lostListeners.delete(l);
  }

  onState(l: (c: Connection) => void): () => void {
    this.stateListeners.add(l);
    return () => void this.stateListeners.delete(l);
  }

  private setState(c: Connection): void {
    this.state = c;
    this.stateListeners.forEach((l) => l(c));
  }
}

export const feed = new LiveFeed();

export function useConnection(): Connection {
  const [state, setState] = useState(feed.state);
  useEffect(() => feed.onState(setState), []);
  return state;
}

/**
 * Calls `reload` (at most every 300 ms) when an event of one of `kinds` arrives that `accept`
 * keeps, and after a reconnect.
 */
export function useLiveReload(kinds: LiveEvent['kind'][], reload: () => void, accept?: (e: LiveEvent) => boolean) {
  const latest = useRef({ reload, accept });
  latest.current = { reload, accept };
  const key = kinds.join(',');
  useEffect(() => {
    let timer: number | undefined;
    const unsubscribe = feed.subscribe((e) => {
      if (e !== 'resync' && (!kinds.includes(e.kind) || (latest.current.accept && !latest.current.accept(e)))) return;
      if (timer !== undefined) return;
      timer = window.setTimeout(() => {
        timer = undefined;
        latest.current.reload();
      }, 300);
    });
    return () => {
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [key]);
}
