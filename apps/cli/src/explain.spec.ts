import { DroverApiError } from '@drover/api-client';
import { parseDuration, parseInstant } from './args';
import { UsageError } from './cli-error';
import { ExitCode } from './exit-codes';
import { explain } from './explain';

const apiError = (status: number, detail: string, errors?: { path: string; message: string }[]) =>
  new DroverApiError(
    status,
    { type: 'urn:drover:problem:x', title: 'Bad Request', status, detail, ...(errors && { errors }) },
    'GET /x',
  );
const url = () => 'http://127.0.0.1:3000';

describe('explain', () => {
  it('maps API answers to one line and the documented exit code', () => {
    expect(explain(apiError(401, 'the bearer token is not valid'), url)).toEqual({
      message: expect.stringMatching(/^the API at http:\/\/127\.0\.0\.1:3000 refused the token \(401/),
      exitCode: ExitCode.unauthorized,
    });
    expect(explain(apiError(403, 'needs role admin'), url).exitCode).toBe(ExitCode.unauthorized);
    expect(explain(apiError(404, 'no run x'), url)).toEqual({ message: 'not found (404): no run x', exitCode: 5 });
    expect(explain(apiError(400, 'invalid input', [{ path: 'body.priority', message: 'too big' }]), url).message).toBe(
      'bad request (400): invalid input (body.priority: too big)',
    );
  });

  it('names the URL when the api cannot be reached', () => {
    const err = new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) });
    expect(explain(err, url)).toEqual({
      message:
        'cannot reach the Drover API at http://127.0.0.1:3000: connection refused (set --api-url or DROVER_API_URL)',
      exitCode: ExitCode.unreachable,
    });
  });

  it('keeps a usage error a usage error', () => {
    expect(explain(new UsageError('--limit: bad'), url)).toEqual({ message: '--limit: bad', exitCode: ExitCode.usage });
  });
});

describe('duration and instant arguments', () => {
  it('reads durations and refuses nonsense naming the option', () => {
    expect(parseDuration('1h30m', '--timeout')).toBe(5_400_000);
    expect(parseDuration('250', '--timeout')).toBe(250);
    expect(() => parseDuration('soon', '--timeout')).toThrow(/--timeout: "soon" is not a duration/);
  });

  it('reads ISO instants and durations from now, either way', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseInstant('2h', '--until', now)).toBe('2026-01-01T02:00:00.000Z');
    expect(parseInstant('-30m', '--from', now)).toBe('2025-12-31T23:30:00.000Z');
    expect(parseInstant('2026-05-01T09:00:00Z', '--from', now)).toBe('2026-05-01T09:00:00Z');
    expect(parseInstant('tomorrow 09:00', '--until', now)).toBe('2026-01-02T09:00:00.000Z');
    expect(() => parseInstant('soon', '--until', now)).toThrow(UsageError);
  });
});
