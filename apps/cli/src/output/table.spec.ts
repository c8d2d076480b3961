import { palette, colorWanted, visibleLength } from './color';
import { renderTable } from './table';
import { humanDuration, relativeTime } from './time';

describe('renderTable', () => {
  const rows = [
    { name: 'nightly-report-for-the-finance-team', n: 3 },
    { name: 'b', n: 12 },
  ];
  const cols = [
    { header: 'name', value: (r: (typeof rows)[number]) => r.name, shrink: true },
    { header: 'count', value: (r: (typeof rows)[number]) => String(r.n), right: true },
  ];

  it('aligns columns under upper-case headers, numbers to the right', () => {
    expect(renderTable(cols, rows)).toBe(
      'NAME                                 COUNT\n' +
        'nightly-report-for-the-finance-team      3\n' +
        'b                                       12\n',
    );
  });

  it('cuts shrinkable columns with … to fit a terminal, and nothing without one', () => {
    const lines = renderTable(cols, rows, 24).trimEnd().split('\n');
    expect(lines.every((l) => l.length <= 24)).toBe(true);
    expect(lines[1]).toBe('nightly-report-f…      3');
    expect(renderTable(cols, rows)).toContain('finance-team');
  });

  it('measures coloured cells by what shows', () => {
    const c = palette(true);
    expect(visibleLength(c.red('parked'))).toBe(6);
    const out = renderTable([{ header: 's', value: (s: string) => c.status(s) }], ['parked', 'succeeded']);
    expect(out.split('\n')[1]).toBe(`${c.red('parked')}`);
  });
});

describe('colour and time for people', () => {
  it('honours --no-color, NO_COLOR, FORCE_COLOR and a terminal', () => {
    expect(colorWanted(true, {}, true)).toBe(true);
    expect(colorWanted(true, {}, false)).toBe(false);
    expect(colorWanted(false, {}, true)).toBe(false);
    expect(colorWanted(true, { NO_COLOR: '1' }, true)).toBe(false);
    expect(colorWanted(true, { FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colorWanted(true, { TERM: 'dumb' }, true)).toBe(false);
  });

  it('writes durations and relative times', () => {
    expect(humanDuration(850)).toBe('850ms');
    expect(humanDuration(200_000)).toBe('3m20s');
    expect(humanDuration(7_500_000)).toBe('2h5m');
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(relativeTime('2026-01-01T00:00:05Z', now)).toBe('in 5s');
    expect(relativeTime('2025-12-31T23:00:00Z', now)).toBe('1h ago');
    expect(relativeTime(null, now)).toBe('-');
  });
});
