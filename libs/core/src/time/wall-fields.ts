/** What a zone's formatter shows: every wall-clock field, with the era and a 24-hour clock. */
export const WALL_CLOCK_FORMAT: Readonly<Intl.DateTimeFormatOptions> = {
  hourCycle: 'h23',
  era: 'short',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
};

/** How ICU's en-US data writes era, numeric date and 24-hour time: `M/D/Y E, hh:mm:ss`. */
const EN_US_WALL = /^(\d+)\/(\d+)\/(\d+) (AD|BC), (\d+):(\d+):(\d+)$/;

/**
 * The wall-clock fields (astronomical year, month 1-12, day, hour, minute, second) of `at` as `f`
 * shows it; `f` is an en-US formatter of era, numeric year, month, day, hour (`h23`), minute and
 * second. `format` and one regular expression cost about a quarter of `formatToParts`, and a
 * next-slot computation in a zone reads the fields about seven times; should `f` write them another
 * way (another ICU version), `formatToParts` reads them.
 */
export function wallFields(f: Intl.DateTimeFormat, at: Date): [number, number, number, number, number, number] {
  const m = EN_US_WALL.exec(f.format(at));
  if (m) {
    const year = m[4] === 'BC' ? 1 - Number(m[3]) : Number(m[3]);
    return [year, Number(m[1]), Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7])];
  }
  const parts = f.formatToParts(at);
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value ?? '0');
  const year = parts.find((p) => p.type === 'era')?.value === 'BC' ? 1 - get('year') : get('year');
  return [year, get('month'), get('day'), get('hour'), get('minute'), get('second')];
}
