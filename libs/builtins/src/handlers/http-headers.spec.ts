import { candidateHeadersSchema, payloadHeadersSchema } from '@drover/core';
import { requestHeaders, type DroverHeaderValues } from './http-headers';

const drover: DroverHeaderValues = {
  runId: 'r-hook-1000',
  routine: 'hook',
  scheduledFor: '2026-01-01T00:00:00.000Z',
  attempt: 2,
};

function problems(headers: Record<string, string>, schema = payloadHeadersSchema): string[] {
  const parsed = schema.safeParse(headers);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`);
}

describe('requestHeaders', () => {
  it("replaces a payload header that names one of Drover's in any case instead of merging the two", () => {
    const headers = requestHeaders(
      {
        'x-drover-run-id': 'forged',
        'X-DROVER-ROUTINE': 'forged',
        'X-Drover-Scheduled-For': 'forged',
        'x-DrOvEr-attempt': '99',
        authorization: 'Bearer t',
      },
      drover,
    );
    expect(headers).toEqual({
      authorization: 'Bearer t',
      'X-Drover-Run-Id': 'r-hook-1000',
      'X-Drover-Routine': 'hook',
      'X-Drover-Scheduled-For': '2026-01-01T00:00:00.000Z',
      'X-Drover-Attempt': '2',
    });
    // What fetch sends: one value per Drover header, Drover's.
    const sent = new Headers(headers);
    expect(sent.get('x-drover-run-id')).toBe('r-hook-1000');
    expect(sent.get('x-drover-attempt')).toBe('2');
  });

  it('adds the default content type only when the payload sets none, in any case', () => {
    expect(requestHeaders({}, drover, 'application/json')['content-type']).toBe('application/json');
    const own = requestHeaders({ 'Content-Type': 'text/csv' }, drover, 'application/json');
    expect(new Headers(own).get('content-type')).toBe('text/csv');
  });
});

describe('payloadHeadersSchema', () => {
  it('accepts ordinary headers, also Drover header names with any value (they are replaced)', () => {
    expect(
      problems({
        Authorization: 'Bearer t',
        'X-Custom_1': 'a b\tc',
        'X-Latin': 'caf\u00e9',
        'x-drover-run-id': 'a\r\nb',
      }),
    ).toEqual([]);
  });

  it.each([
    'Host',
    'content-length',
    'Transfer-Encoding',
    'Connection',
    'Keep-Alive',
    'Upgrade',
    'TE',
    'Trailer',
    'Expect',
  ])('refuses %s: the HTTP client frames the request, a payload may not', (name) => {
    expect(problems({ [name]: 'x' })).toEqual([
      `${name}: is set by the HTTP client from the URL and body; a payload may not set it`,
    ]);
  });

  it('refuses a header value with CR or LF (header injection), naming the header and the character', () => {
    expect(problems({ 'X-A': 'a\r\nX-Injected: 1' })).toEqual([
      'X-A: value holds CR (U+000D) at index 1, which a header value may not carry',
    ]);
    expect(problems({ 'X-B': 'a\nb' })).toEqual([
      'X-B: value holds LF (U+000A) at index 1, which a header value may not carry',
    ]);
  });

  it('refuses NUL, other control characters and characters fetch cannot encode', () => {
    expect(problems({ 'X-A': 'a\0' })).toEqual([
      'X-A: value holds NUL (U+0000) at index 1, which a header value may not carry',
    ]);
    expect(problems({ 'X-B': '\u007f' })).toEqual([
      'X-B: value holds U+007F at index 0, which a header value may not carry',
    ]);
    expect(problems({ 'X-C': '5 \u20ac' })).toEqual([
      'X-C: value holds U+20AC at index 2, which a header value may not carry',
    ]);
  });

  it('refuses a header name that is not a token', () => {
    for (const name of ['X A', '', 'X-A:', 'X-\u00e9', 'X-A\r\nX-B']) {
      expect(problems({ [name]: 'v' })).toEqual([
        `${name}: is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only)`,
      ]);
    }
  });

  it('refuses one header given twice in different cases (fetch would join the values)', () => {
    expect(problems({ 'X-Tenant': 'a', 'x-tenant': 'b' })).toEqual([
      'x-tenant: is given twice (also as "X-Tenant"); header names are case-insensitive',
    ]);
  });
});

describe('the X-Drover- namespace', () => {
  it('http.request: any X-Drover-* name other than the ones Drover replaces is refused', () => {
    expect(problems({ 'X-Drover-Admin': '1', 'x-drover-run-id': 'x' })).toEqual([
      'X-Drover-Admin: is in the X-Drover- namespace, which only Drover sets',
    ]);
  });

  it('http.candidates args: every X-Drover-* name is refused, and Host like any framing header', () => {
    expect(
      problems(
        { 'X-Drover-Routine': 'forged', 'x-drover-key': 'k', Host: 'admin.internal', 'X-Tenant': 'a' },
        candidateHeadersSchema,
      ),
    ).toEqual([
      'X-Drover-Routine: is in the X-Drover- namespace, which only Drover sets',
      'x-drover-key: is in the X-Drover- namespace, which only Drover sets',
      'Host: is set by the HTTP client from the URL and body; a payload may not set it',
    ]);
  });
});
