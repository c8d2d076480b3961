import type { DroverKeys } from '@drover/redis';

/** A request to abort a running run, broadcast to every worker; the one holding it acts. */
export interface CancelMessage {
  id: string;
  queue: string;
  reason: string;
}

export function cancelChannel(keys: DroverKeys): string {
  return keys.cancel();
}

export function encodeCancel(msg: CancelMessage): string {
  return JSON.stringify(msg);
}

/** Parses a message from the channel; undefined for anything malformed (never throws). */
export function decodeCancel(raw: string): CancelMessage | undefined {
  try {
    const m = JSON.parse(raw) as Partial<CancelMessage>;
    if (typeof m.id === 'string' && typeof m.queue === 'string') {
      return { id: m.id, queue: m.queue, reason: typeof m.reason === 'string' ? m.reason : 'canceled' };
    }
  } catch {
    // ignore
  }
  return undefined;
}
