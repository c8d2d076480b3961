/**
 * One line of a run's log, as handlers write it (`ctx.log(message, fields)`) and BullMQ keeps it
 * (one element of the job's `<queue>:<id>:logs` list). Stored as a compact JSON object,
 * `{"n":3,"t":1764145000000,"msg":"fetched","f":{"rows":200}}`: `n` numbers the run's lines from 1
 * across its attempts (a reader's cursor stays valid after the oldest lines were dropped), `t` is
 * when it was written (epoch ms, cluster clock), `f` the handler's fields, if any.
 */
export interface RunLogLine {
  /** 1-based number of the line in the run (never reused); absent on a line written by plain `job.log`. */
  seq?: number;
  /** Epoch ms; absent on a line written by plain `job.log`. */
  at?: number;
  message: string;
  fields?: Record<string, unknown>;
}

/** Longest stored line in UTF-8 bytes; a longer one loses its fields, then the end of its message. */
export const RUN_LOG_LINE_MAX_BYTES = 2_048;

/** Appended to a message cut to fit {@link RUN_LOG_LINE_MAX_BYTES}. */
export const RUN_LOG_TRUNCATED = ' …[truncated]';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function bytes(s: string): number {
  return encoder.encode(s).length;
}

/** The first `max` bytes of `s`, cut on a character boundary. */
function cutToBytes(s: string, max: number): string {
  const encoded = encoder.encode(s);
  if (encoded.length <= max) return s;
  let end = Math.max(0, max);
  // A UTF-8 continuation byte is 10xxxxxx: back up to the start of the character it belongs to.
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return decoder.decode(encoded.subarray(0, end));
}

/**
 * The stored form of a line, at most `maxBytes` long: fields that do not serialise (a cycle, a
 * BigInt) or do not fit are dropped (`f: {truncated: true}`), then the message is cut and marked.
 */
export function formatRunLogLine(
  seq: number,
  at: number,
  message: string,
  fields?: Record<string, unknown>,
  maxBytes = RUN_LOG_LINE_MAX_BYTES,
): string {
  const head = { n: seq, t: at, msg: message };
  if (fields !== undefined && Object.keys(fields).length > 0) {
    let line: string | undefined;
    try {
      line = JSON.stringify({ ...head, f: fields });
    } catch {
      /* not serialisable: the fields are left out below */
    }
    if (line !== undefined && bytes(line) <= maxBytes) return line;
  }
  const line = JSON.stringify(fields === undefined ? head : { ...head, f: { truncated: true } });
  if (bytes(line) <= maxBytes) return line;
  // JSON escapes may make the message longer than its bytes: cut until the line fits.
  let budget = maxBytes - (bytes(line) - bytes(message)) - bytes(RUN_LOG_TRUNCATED);
  for (;;) {
    const cut = JSON.stringify({ n: seq, t: at, msg: cutToBytes(message, budget) + RUN_LOG_TRUNCATED });
    if (bytes(cut) <= maxBytes || budget <= 0) return cut;
    budget -= Math.max(1, bytes(cut) - maxBytes);
  }
}

/** A stored line read back. A line not in Drover's form (plain BullMQ `job.log`) is its message. */
export function parseRunLogLine(raw: string): RunLogLine {
  if (raw.startsWith('{')) {
    try {
      const o = JSON.parse(raw) as { n?: unknown; t?: unknown; msg?: unknown; f?: unknown };
      if (typeof o.n === 'number' && typeof o.t === 'number' && typeof o.msg === 'string') {
        const line: RunLogLine = { seq: o.n, at: o.t, message: o.msg };
        if (o.f !== null && typeof o.f === 'object') line.fields = o.f as Record<string, unknown>;
        return line;
      }
    } catch {
      /* not Drover's form */
    }
  }
  return { message: raw };
}
