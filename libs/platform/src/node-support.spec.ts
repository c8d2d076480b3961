import { nodeLineSupport, nodeLineWarning } from './node-support';

const at = (iso: string) => Date.parse(iso);

describe('nodeLineSupport', () => {
  it('knows a line as supported until the day after its end of life, in every zone', () => {
    expect(nodeLineSupport('v20.20.2', at('2026-04-30T23:59:00-10:00'))).toEqual({
      line: 20,
      endOfLife: '2026-04-30',
      ended: false,
    });
    expect(nodeLineSupport('v20.20.2', at('2026-05-01T12:00:00Z')).ended).toBe(true);
  });

  it('reads versions with or without the v and the minor', () => {
    expect(nodeLineSupport('24.1.0', at('2026-11-25T00:00:00Z'))).toMatchObject({ line: 24, ended: false });
    expect(nodeLineSupport('22', at('2027-06-01T00:00:00Z'))).toMatchObject({ line: 22, ended: true });
  });

  it('counts a line older than the table as ended', () => {
    expect(nodeLineSupport('v16.20.2', at('2026-11-25T00:00:00Z'))).toEqual({
      line: 16,
      endOfLife: undefined,
      ended: true,
    });
    expect(nodeLineWarning('v16.20.2', at('2026-11-25T00:00:00Z'))).toMatch(/^Node.js 16 reached end of life and/);
  });

  it('does not claim an end for a newer line the table does not know', () => {
    expect(nodeLineSupport('v40.0.0', at('2040-01-01T00:00:00Z'))).toEqual({
      line: 40,
      endOfLife: undefined,
      ended: false,
    });
  });
});

describe('nodeLineWarning', () => {
  it('names the ended line, its date and the next supported even line', () => {
    expect(nodeLineWarning('v20.20.2', at('2026-11-25T00:00:00Z'))).toBe(
      'Node.js 20 reached end of life on 2026-04-30 and gets no security fixes: run Drover on a supported line (Node.js 22 or later)',
    );
    expect(nodeLineWarning('v23.1.0', at('2026-11-25T00:00:00Z'))).toMatch(/Node.js 23 .* \(Node.js 22 or later\)/);
  });

  it('is silent on a supported line', () => {
    expect(nodeLineWarning('v24.11.0', at('2026-11-25T00:00:00Z'))).toBeUndefined();
  });
});
