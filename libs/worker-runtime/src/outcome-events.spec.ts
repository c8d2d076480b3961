import { shownSeconds } from './outcome-events';

describe('the duration a run-outcome log line shows', () => {
  it('is rounded to three significant digits, whatever its size', () => {
    expect(shownSeconds(1.5011830130000001)).toBe(1.5);
    expect(shownSeconds(0.00009140600000000631)).toBe(0.0000914);
    expect(shownSeconds(12.3456)).toBe(12.3);
    expect(JSON.stringify({ seconds: shownSeconds(0.00001938900000004651) })).toBe('{"seconds":0.0000194}');
  });

  it('stays absent when the attempt was not timed', () => {
    expect(shownSeconds(undefined)).toBeUndefined();
  });
});
