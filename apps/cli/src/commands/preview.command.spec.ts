import { drover } from '../testing/fake-io';

/** Fires after `from`, as the JSON items scripts get. */
async function items(cron: string, tz: string, from: string, count: number) {
  const run = await drover(['-o', 'json', 'preview', cron, '--tz', tz, '--from', from, '--count', String(count)]);
  expect(run).toMatchObject({ code: 0, err: '' });
  return JSON.parse(run.out) as { cron: string; tz: string; from: string; items: unknown[] };
}

describe('drover preview', () => {
  it('lists the next fires as a table with UTC, local time, how far off and DST marks', async () => {
    const run = await drover(['preview', '30 2 * * *', '--tz', 'Europe/Berlin', '--from', '2026-03-27T12:00:00Z'], {
      now: Date.parse('2026-03-27T12:00:00Z'),
    });
    expect(run.code).toBe(0);
    const lines = run.out.split('\n');
    expect(lines[0]).toMatch(/^ #\s+UTC\s+LOCAL\s+IN\s+DST$/);
    expect(lines[1]).toMatch(/^ 1\s+2026-03-28T01:30:00\.000Z\s+2026-03-28T02:30:00\.000\+01:00\s+in 13h\s+-$/);
    expect(lines[2]).toMatch(/^ 2\s+2026-03-29T01:00:00\.000Z\s+2026-03-29T03:00:00\.000\+02:00\s+in 1d13h\s+gap$/);
    expect(lines.filter((l) => /^\s*\d+\s/.test(l))).toHaveLength(10);
    expect(run.out).toContain('\ngap: that wall time does not exist that day (clocks spring forward)');
    expect(run.out).not.toContain('overlap:');
  });

  it('marks the spring-forward gap as the core does', async () => {
    expect((await items('30 2 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z', 3)).items).toEqual([
      { at: '2026-03-28T01:30:00.000Z', local: '2026-03-28T02:30:00.000+01:00' },
      { at: '2026-03-29T01:00:00.000Z', local: '2026-03-29T03:00:00.000+02:00', dst: 'gap' },
      { at: '2026-03-30T00:30:00.000Z', local: '2026-03-30T02:30:00.000+02:00' },
    ]);
  });

  it('marks the fall-back overlap, fired once, and explains it in a footnote', async () => {
    expect((await items('30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 2)).items).toEqual([
      { at: '2026-10-25T00:30:00.000Z', local: '2026-10-25T02:30:00.000+02:00', dst: 'overlap' },
      { at: '2026-10-26T01:30:00.000Z', local: '2026-10-26T02:30:00.000+01:00' },
    ]);
    const run = await drover(['preview', '30 2 * * *', '--tz', 'Europe/Berlin', '--from', '2026-10-24T12:00:00Z']);
    expect(run.out).toContain('\noverlap: that wall time happens twice that day (clocks fall back); it fires once');
  });

  it('handles a zone with a 30-minute offset and a 30-minute DST shift', async () => {
    expect((await items('0 9 * * *', 'Asia/Kolkata', '2026-01-01T00:00:00Z', 1)).items).toEqual([
      { at: '2026-01-01T03:30:00.000Z', local: '2026-01-01T09:00:00.000+05:30' },
    ]);
    // Lord Howe 2025-10-05: 02:00 (+10:30) jumps to 02:30 (+11).
    expect((await items('0 2 * * *', 'Australia/Lord_Howe', '2025-10-04T00:00:00Z', 2)).items).toEqual([
      { at: '2025-10-04T15:30:00.000Z', local: '2025-10-05T02:30:00.000+11:00', dst: 'gap' },
      { at: '2025-10-05T15:00:00.000Z', local: '2025-10-06T02:00:00.000+11:00' },
    ]);
  });

  it('starts from now in UTC by default, and from --from when given', async () => {
    const run = await drover(['-o', 'json', 'preview', '0 0 1 * *', '--count', '2'], {
      now: Date.parse('2026-05-10T08:00:00Z'),
    });
    expect(JSON.parse(run.out)).toEqual({
      cron: '0 0 1 * *',
      tz: 'UTC',
      from: '2026-05-10T08:00:00.000Z',
      items: [
        { at: '2026-06-01T00:00:00.000Z', local: '2026-06-01T00:00:00.000+00:00' },
        { at: '2026-07-01T00:00:00.000Z', local: '2026-07-01T00:00:00.000+00:00' },
      ],
    });
    const fixed = await items('0 0 1 * *', 'UTC', '2026-01-01T00:00:00+01:00', 1);
    expect(fixed.from).toBe('2025-12-31T23:00:00.000Z');
    expect(fixed.items).toEqual([{ at: '2026-01-01T00:00:00.000Z', local: '2026-01-01T00:00:00.000+00:00' }]);
  });

  it('lists up to 1000 fires and refuses counts outside 1-1000', async () => {
    expect((await items('0 * * * *', 'UTC', '2026-01-01T00:00:00Z', 1000)).items).toHaveLength(1000);
    for (const count of ['0', '1001', '2.5', 'ten']) {
      const run = await drover(['preview', '0 * * * *', '--count', count]);
      expect(run).toEqual({
        code: 2,
        out: '',
        err: `drover: --count must be a whole number from 1 to 1000 (got "${count}")\n`,
      });
    }
  });

  it('is a usage error naming what is wrong with a bad cron, zone or start', async () => {
    expect(await drover(['preview', '0 2 * *'])).toEqual({
      code: 2,
      out: '',
      err: 'drover: <cron>: "0 2 * *" is not a valid cron expression (has 4 fields; expected 5 (minute hour day-of-month month day-of-week) or 6 (second first)); e.g. "0 2 * * *"\n',
    });
    expect(await drover(['preview', '0 2 * * *', '--tz', 'Europe/Berlim'])).toEqual({
      code: 2,
      out: '',
      err: 'drover: --tz: "Europe/Berlim" is not an IANA time zone; e.g. "Europe/Berlin", "America/New_York", "UTC"\n',
    });
    const from = await drover(['preview', '0 2 * * *', '--from', '2026-03-29 00:00']);
    expect(from.code).toBe(2);
    expect(from.err).toContain('--from: "2026-03-29 00:00" is not an ISO 8601 instant with an offset');
  });

  it('reads a 6-field expression with seconds first', async () => {
    expect((await items('*/20 * * * * *', 'UTC', '2026-01-01T00:00:00Z', 2)).items).toEqual([
      { at: '2026-01-01T00:00:20.000Z', local: '2026-01-01T00:00:20.000+00:00' },
      { at: '2026-01-01T00:00:40.000Z', local: '2026-01-01T00:00:40.000+00:00' },
    ]);
  });
});
