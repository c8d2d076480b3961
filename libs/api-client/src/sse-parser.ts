/** One event as a client dispatches it (WHATWG HTML §9.2.6). */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * Parses an event stream incrementally: feed it text as it arrives, get the events each chunk
 * completed. Handles CR, LF and CRLF line ends, comments, multi-line data and `retry:`.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id?: string;
  retry?: number;
  comments = 0;

  feed(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      // A lone CR at the end may be the first half of a CRLF: wait for more.
      if (!m || (m[0] === '\r' && m.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      if (line === '') {
        if (this.data.length > 0) {
          out.push({
            event: this.event || 'message',
            data: this.data.join('\n'),
            ...(this.id !== undefined && { id: this.id }),
          });
        }
        this.data = [];
        this.event = '';
        continue;
      }
      if (line.startsWith(':')) {
        this.comments++;
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') this.data.push(value);
      else if (field === 'event') this.event = value;
      else if (field === 'id') this.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    }
    return out;
  }
}
