/**
 * End of life of each Node.js release line (the Node.js release schedule). After that date a line
 * gets no security fixes, so an app running on it says so at start and the image's base must not
 * be one (test/deploy/dockerfile-rules.ts). Odd lines are short-lived "current" releases.
 */
export const NODE_END_OF_LIFE: Readonly<Record<number, string>> = {
  18: '2025-04-30',
  19: '2023-06-01',
  20: '2026-04-30',
  21: '2024-06-01',
  22: '2027-04-30',
  23: '2025-06-01',
  24: '2028-04-30',
  25: '2026-06-01',
  26: '2029-04-30',
};

export interface NodeLineSupport {
  line: number;
  /** The line's end-of-life date (YYYY-MM-DD), when the table knows the line. */
  endOfLife?: string;
  /** True once `now` is past the end-of-life date. */
  ended: boolean;
}

/** Whether the Node.js line of `version` (`v20.20.2`, `20.20.2` or `20`) has ended at `now` (ms). */
export function nodeLineSupport(version: string, now: number): NodeLineSupport {
  const line = Number(/^v?(\d+)/.exec(version)?.[1] ?? NaN);
  const endOfLife = NODE_END_OF_LIFE[line];
  // The end-of-life day itself is still supported: the line ends after it, in every zone. A line
  // older than the table's oldest ended before it.
  const oldest = Math.min(...Object.keys(NODE_END_OF_LIFE).map(Number));
  const ended =
    line < oldest || (endOfLife !== undefined && now >= Date.parse(`${endOfLife}T00:00:00Z`) + 36 * 3_600_000);
  return { line, endOfLife, ended };
}

/** The warning an app logs at start on an ended line, or undefined on a supported one. */
export function nodeLineWarning(version: string, now: number): string | undefined {
  const s = nodeLineSupport(version, now);
  if (!s.ended) return undefined;
  const next = Object.entries(NODE_END_OF_LIFE)
    .filter(([line, eol]) => Number(line) % 2 === 0 && Date.parse(eol) > now)
    .map(([line]) => Number(line))[0];
  return (
    `Node.js ${s.line} reached end of life${s.endOfLife ? ` on ${s.endOfLife}` : ''} and gets no security fixes: ` +
    `run Drover on a supported line${next ? ` (Node.js ${next} or later)` : ''}`
  );
}
