import { escapeControls } from './audit-text';

describe('escapeControls', () => {
  it('writes newlines, ESC, DEL, C1 and bidi overrides as visible escapes', () => {
    expect(escapeControls('name=a\nb')).toBe('name=a\\nb');
    expect(escapeControls('x\u001b[2Jy')).toBe('x\\x1b[2Jy');
    expect(escapeControls('\r\t\u0000\u007f\u0085')).toBe('\\r\\t\\x00\\x7f\\x85');
    expect(escapeControls('evil\u202etxt.exe\u2028')).toBe('evil\\u202etxt.exe\\u2028');
  });

  it('doubles backslashes so an escape in the text cannot pass for an escaped control', () => {
    expect(escapeControls('a\\nb')).toBe('a\\\\nb');
  });

  it('leaves ordinary text, accents and emoji alone', () => {
    expect(escapeControls('routine=nightly-é ✓ 🚀 %0A')).toBe('routine=nightly-é ✓ 🚀 %0A');
  });
});
