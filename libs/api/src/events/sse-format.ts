/** One Server-Sent Event as the wire carries it (WHATWG HTML §9.2). */
export interface SseMessage {
  /** The event type (`status`, `run`, …); absent = `message`. */
  event?: string;
  /** Serialised as JSON unless it is a string already. */
  data?: unknown;
  /** The `id:` line: what a client sends back as `Last-Event-ID`. */
  id?: string | number;
  /** The reconnection delay a client should use, in ms. */
  retry?: number;
}

/** A field value may not hold a line break: it would end the field (and could forge another). */
const oneLine = (v: string): string => v.replace(/[\r\n]+/g, ' ');

/**
 * One event as text, ending in the blank line that dispatches it. Data spanning lines becomes one
 * `data:` line per line, which the client joins back with `\n`. Pure.
 */
export function formatSse(msg: SseMessage): string {
  let out = '';
  if (msg.retry !== undefined) out += `retry: ${Math.max(0, Math.floor(msg.retry))}\n`;
  if (msg.id !== undefined) out += `id: ${oneLine(String(msg.id))}\n`;
  if (msg.event !== undefined) out += `event: ${oneLine(msg.event)}\n`;
  if (msg.data !== undefined) {
    const text = typeof msg.data === 'string' ? msg.data : JSON.stringify(msg.data);
    for (const line of text.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  }
  return `${out}\n`;
}

/** A comment line (ignored by clients): keeps proxies and load balancers from timing out an idle stream. */
export function sseComment(text: string): string {
  return `: ${oneLine(text)}\n\n`;
}
