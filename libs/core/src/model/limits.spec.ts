import { parseBundle } from './bundle.schema';
import {
  MAX_CRON_LENGTH,
  MAX_HOOK_NAME_LENGTH,
  MAX_INSTANT_LENGTH,
  MAX_JOB_TYPE_LENGTH,
  MAX_LABEL_NAME_LENGTH,
  MAX_LABEL_PREFIX_LENGTH,
  MAX_LABEL_VALUE_LENGTH,
  MAX_LABELS,
  MAX_NAME_LENGTH,
  MAX_OWNER_LENGTH,
  MAX_PAUSE_NOTE_LENGTH,
  MAX_PAYLOAD_BYTES,
  MAX_ROUTINE_BYTES,
  MAX_SELECTOR_ARGS_BYTES,
  MAX_TZ_LENGTH,
} from './limits';
import { pauseRequestSchema } from './pause';

const routine = (over: Record<string, unknown> = {}) => ({
  name: 'r',
  jobType: 'noop',
  queue: 'q',
  trigger: { kind: 'manual' },
  ...over,
});

/** What a policy file, the API and the client all run: the errors, or [] when valid. */
function errorsOf(over: Record<string, unknown>): string[] {
  const res = parseBundle({ queues: [{ name: 'q' }], routines: [routine(over)] });
  return res.ok ? [] : res.errors;
}

/** An object whose JSON is exactly `bytes` bytes: `{"b":"xx…"}`. */
const jsonOf = (bytes: number) => ({ b: 'x'.repeat(bytes - 8) });

/** `n` labels with the longest name and value (and prefix, if `prefixed`): `{"ll…l0":"vv…v", …}`. */
function labels(n: number, prefixed = false): Record<string, string> {
  const prefix = prefixed ? `${'p'.repeat(MAX_LABEL_PREFIX_LENGTH)}/` : '';
  const value = 'v'.repeat(MAX_LABEL_VALUE_LENGTH);
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => [prefix + String(i).padStart(MAX_LABEL_NAME_LENGTH, 'l'), value]),
  );
}

/** A valid cron expression of `n` characters: every minute of hour 2 listed, then spaces. */
const cronOf = (n: number) => `${Array.from({ length: 60 }, (_, i) => i).join(',')} 2 * * *`.padEnd(n, ' ');

describe('definition limits', () => {
  it.each<[string, (n: number) => Record<string, unknown>, number, string]>([
    ['name', (n) => ({ name: 'n'.repeat(n) }), MAX_NAME_LENGTH, '.name: "nnnn'],
    [
      'jobType',
      (n) => ({ jobType: 'j'.repeat(n) }),
      MAX_JOB_TYPE_LENGTH,
      'routines[r].jobType: has 201 characters; the limit is 200',
    ],
    [
      'owner',
      (n) => ({ owner: 'o'.repeat(n) }),
      MAX_OWNER_LENGTH,
      'routines[r].owner: has 201 characters; the limit is 200',
    ],
    [
      'condition',
      (n) => ({ condition: 'c'.repeat(n) }),
      MAX_HOOK_NAME_LENGTH,
      'routines[r].condition: has 201 characters; the limit is 200',
    ],
    [
      'selector.provider',
      (n) => ({ selector: { provider: 'p'.repeat(n) } }),
      MAX_HOOK_NAME_LENGTH,
      'routines[r].selector.provider: has 201 characters; the limit is 200',
    ],
    [
      'trigger.cron',
      (n) => ({ trigger: { kind: 'cron', cron: cronOf(n) } }),
      MAX_CRON_LENGTH,
      'routines[r].trigger.cron: has 257 characters; the limit is 256',
    ],
    [
      'trigger.tz',
      (n) => ({ trigger: { kind: 'cron', cron: '0 2 * * *', tz: `Etc/UTC${'/x'.repeat(30)}`.slice(0, n) } }),
      MAX_TZ_LENGTH,
      'routines[r].trigger.tz: has 65 characters; the limit is 64',
    ],
    [
      'trigger.at',
      (n) => ({ trigger: { kind: 'once', at: `2030-01-01T00:00:00.${'0'.repeat(n - 21)}Z` } }),
      MAX_INSTANT_LENGTH,
      'routines[r].trigger.at: has 65 characters; the limit is 64',
    ],
  ])('%s: at its limit it passes the length check, one over is refused naming the field', (_f, make, max, error) => {
    const atLimit = errorsOf(make(max));
    // Past the length check a field may still be refused for what it says (a 64-character tz is no zone).
    expect(atLimit.filter((e) => e.includes('characters; the limit is'))).toEqual([]);
    const over = errorsOf(make(max + 1));
    expect(over).toHaveLength(1);
    expect(over[0]).toContain(error);
  });

  it('a valid cron expression of exactly 256 characters is accepted', () => {
    const cron = cronOf(MAX_CRON_LENGTH);
    expect(cron).toHaveLength(MAX_CRON_LENGTH);
    expect(errorsOf({ trigger: { kind: 'cron', cron } })).toEqual([]);
  });

  it('labels: 64 are accepted, 65 are refused at `labels`', () => {
    expect(errorsOf({ labels: labels(MAX_LABELS) })).toEqual([]);
    expect(errorsOf({ labels: labels(MAX_LABELS + 1) })).toEqual([
      'routines[r].labels: has 65 labels; the limit is 64',
    ]);
  });

  it('label keys: a 63-character name under a 253-character prefix is accepted, one more either side is refused', () => {
    const prefix = `${'p'.repeat(MAX_LABEL_PREFIX_LENGTH - 4)}.com`;
    const name = 'n'.repeat(MAX_LABEL_NAME_LENGTH);
    expect(errorsOf({ labels: { [`${prefix}/${name}`]: 'v' } })).toEqual([]);
    expect(errorsOf({ labels: { [`${prefix}/${name}n`]: 'v' } })).toEqual([
      `routines[r].labels: key "${'p'.repeat(40)}…" has a name of 64 characters; the limit is 63`,
    ]);
    expect(errorsOf({ labels: { [`x${prefix}/${name}`]: 'v' } })).toEqual([
      `routines[r].labels: key "x${'p'.repeat(39)}…" has a prefix of 254 characters; the limit is 253`,
    ]);
    expect(errorsOf({ labels: { 'team/': 'v' } })).toEqual([
      'routines[r].labels: key "team/" has no name; use 1-63 characters, e.g. "team"',
    ]);
  });

  it('label values: 63 characters are accepted, 64 are refused', () => {
    expect(errorsOf({ labels: { team: 'v'.repeat(MAX_LABEL_VALUE_LENGTH) } })).toEqual([]);
    expect(errorsOf({ labels: { team: 'v'.repeat(MAX_LABEL_VALUE_LENGTH + 1) } })).toEqual([
      'routines[r].labels: the value of "team" has 64 characters; the limit is 63',
    ]);
  });

  it('400 labels of 1 kB get a short answer: the count and five of them, the rest counted', () => {
    const big = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, 'v'.repeat(1000)]));
    const errors = errorsOf({ labels: big });
    expect(errors[0]).toBe('routines[r].labels: has 400 labels; the limit is 64');
    expect(errors).toHaveLength(7);
    expect(errors[6]).toBe('routines[r].labels: and 395 more labels over their limits');
    expect(errors.join('\n').length).toBeLessThan(1000);
  });

  it('payload: 256 KiB of JSON is accepted, one byte more is refused', () => {
    expect(errorsOf({ payload: jsonOf(MAX_PAYLOAD_BYTES) })).toEqual([]);
    expect(errorsOf({ payload: jsonOf(MAX_PAYLOAD_BYTES + 1) })).toEqual([
      'routines[r].payload: is 262145 bytes as JSON; the limit is 262144 bytes (256 KiB)',
    ]);
  });

  it('selector.args: 16 KiB of JSON is accepted, one byte more is refused', () => {
    const selector = (args: unknown) => ({ selector: { provider: 'p', args } });
    expect(errorsOf(selector(jsonOf(MAX_SELECTOR_ARGS_BYTES)))).toEqual([]);
    expect(errorsOf(selector(jsonOf(MAX_SELECTOR_ARGS_BYTES + 1)))).toEqual([
      'routines[r].selector.args: is 16385 bytes as JSON; the limit is 16384 bytes (16 KiB)',
    ]);
  });

  it('the whole definition (payload aside): 32 KiB is accepted, one byte more is refused', () => {
    // Fields each within their limits, adding up to the whole's: selector args fill what labels leave.
    const selector = { provider: 'p', args: {} };
    const base = parseBundle({
      queues: [{ name: 'q' }],
      routines: [routine({ selector, labels: labels(MAX_LABELS, true) })],
    });
    if (!base.ok) throw new Error(base.errors.join('\n'));
    const { payload: _p, ...rest } = base.bundle.routines[0]!;
    const room = MAX_ROUTINE_BYTES - Buffer.byteLength(JSON.stringify(rest)) + 2; // {} becomes {"b":"…"}
    const withArgs = (bytes: number) => ({
      selector: { provider: 'p', args: jsonOf(bytes) },
      labels: labels(MAX_LABELS, true),
      payload: jsonOf(MAX_PAYLOAD_BYTES),
    });
    expect(room).toBeLessThanOrEqual(MAX_SELECTOR_ARGS_BYTES);
    expect(errorsOf(withArgs(room))).toEqual([]);
    expect(errorsOf(withArgs(room + 1))).toEqual([
      `routines[r]: the definition is ${MAX_ROUTINE_BYTES + 1} bytes as JSON without its payload; the limit is 32768 bytes (32 KiB)`,
    ]);
  });

  it("a pause's note and until are bounded too", () => {
    expect(pauseRequestSchema.safeParse({ note: 'n'.repeat(MAX_PAUSE_NOTE_LENGTH) }).success).toBe(true);
    const over = pauseRequestSchema.safeParse({ note: 'n'.repeat(MAX_PAUSE_NOTE_LENGTH + 1) });
    expect(over.error?.issues.map((i) => [i.path, i.message])).toEqual([
      [['note'], 'has 501 characters; the limit is 500'],
    ]);
    const until = pauseRequestSchema.safeParse({ until: `2030-01-01T00:00:00.${'0'.repeat(44)}Z` });
    expect(until.error?.issues[0]?.message).toBe('has 65 characters; the limit is 64');
  });
});
