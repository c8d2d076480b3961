import { parseBundle } from './bundle.schema';
import { ROUTINE_DEFAULTS } from './routine.schema';

const queue = { name: 'default' };
const routine = (over: Record<string, unknown> = {}) => ({
  name: 'nightly-backup',
  jobType: 'http.request',
  queue: 'default',
  trigger: { kind: 'cron', cron: '0 2 * * *', tz: 'Europe/Berlin' },
  ...over,
});

function errorsOf(raw: unknown, opts?: Parameters<typeof parseBundle>[1]): string[] {
  const r = parseBundle(raw, opts);
  if (r.ok) throw new Error('expected the bundle to be refused');
  return r.errors;
}

describe('parseBundle', () => {
  it('fills in the documented queue defaults', () => {
    const r = parseBundle({ queues: [queue] });
    expect(r).toEqual({
      ok: true,
      bundle: {
        queues: [
          {
            name: 'default',
            concurrency: 10,
            maxAttempts: 3,
            backoff: { type: 'exponential', delayMs: 1000, maxDelayMs: 60_000, jitter: 0 },
            timeoutMs: 300_000,
            leaseMs: 30_000,
            retention: { count: 1000, ageMs: 604_800_000, logLines: 1000 },
          },
        ],
        routines: [],
      },
    });
  });

  it('fills in the routine defaults', () => {
    const r = parseBundle({ queues: [queue], routines: [routine()] });
    expect(r.ok && r.bundle.routines[0]).toEqual({
      ...routine(),
      payload: {},
      priority: 'medium',
      concurrencyPolicy: 'allow',
      catchUpPolicy: 'skip',
      maxCatchUp: 100,
      maxLaunchFailures: 5,
      conditionTimeoutMs: 10_000,
      misfireGraceMs: 60_000,
      jitterMs: 0,
      status: 'active',
      system: false,
      labels: {},
    });
  });

  it('derives the defaults storage leaves out from the schema itself', () => {
    const r = parseBundle({ queues: [queue], routines: [routine()] });
    const { name: _n, jobType: _j, queue: _q, trigger: _t, ...filled } = (r.ok && r.bundle.routines[0]) || {};
    expect(ROUTINE_DEFAULTS).toEqual(filled);
    expect(Object.isFrozen(ROUTINE_DEFAULTS)).toBe(true);
  });

  it('accepts the example bundle of the policy-file docs', () => {
    const r = parseBundle({
      queues: [
        {
          name: 'default',
          concurrency: 10,
          globalConcurrency: 50,
          maxAttempts: 3,
          backoff: { type: 'exponential', delayMs: 1000, maxDelayMs: 60000 },
          timeoutMs: 300000,
          leaseMs: 30000,
        },
      ],
      routines: [
        routine({
          payload: { url: 'http://backup.internal/run', method: 'POST' },
          concurrencyPolicy: 'forbid',
          catchUpPolicy: 'last',
          startingDeadlineMs: 600000,
        }),
        {
          name: 'nightly-report',
          jobType: 'reports.generate',
          queue: 'default',
          trigger: { kind: 'once', at: '2026-12-24T18:00:00Z' },
          priority: 'high',
          condition: 'has-new-orders',
          maxLaunchFailures: 5,
        },
      ],
    });
    expect(r.ok).toBe(true);
  });

  it('treats a missing bundle or missing lists as empty', () => {
    expect(parseBundle(undefined)).toEqual({ ok: true, bundle: { queues: [], routines: [] } });
    expect(parseBundle({})).toEqual({ ok: true, bundle: { queues: [], routines: [] } });
  });

  it.each([
    [
      { cron: '61 * * * *' },
      'routines[nightly-backup].trigger.cron: "61 * * * *" is not a valid cron expression (minute must be 0-59); e.g. "0 2 * * *"',
    ],
    [
      { cron: '0 2 * *' },
      'routines[nightly-backup].trigger.cron: "0 2 * *" is not a valid cron expression (has 4 fields; expected 5',
    ],
    [{ cron: '@daily' }, 'has 1 field; expected 5'],
    [
      { tz: 'Mars/Olympus' },
      'routines[nightly-backup].trigger.tz: "Mars/Olympus" is not an IANA time zone; e.g. "Europe/Berlin"',
    ],
  ])('refuses a bad cron trigger %j', (over, message) => {
    const trigger = { kind: 'cron', cron: '0 2 * * *', tz: 'Europe/Berlin', ...over };
    const errors = errorsOf({ queues: [queue], routines: [routine({ trigger })] });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(message);
  });

  it('names the item by index when it has no usable name', () => {
    const errors = errorsOf({ queues: [queue], routines: [routine({ name: 'Bad Name' })] });
    expect(errors).toEqual([
      'routines[Bad Name].name: "Bad Name" is not a valid name; use 1-128 of a-z 0-9 . _ - starting with a letter or digit, e.g. "nightly-backup"',
    ]);
    expect(errorsOf({ queues: [{ name: 5 }] })[0]).toMatch(/^queues\[0\]\.name: /);
  });

  it('refuses a cron that fires more often than the floor', () => {
    const trigger = { kind: 'cron', cron: '*/10 * * * * *' };
    expect(parseBundle({ queues: [queue], routines: [routine({ trigger })] }).ok).toBe(true);
    const errors = errorsOf({ queues: [queue], routines: [routine({ trigger })] }, { minFireIntervalMs: 60_000 });
    expect(errors).toEqual([
      'routines[nightly-backup].trigger.cron: "*/10 * * * * *" may fire every 10 s; the floor is one fire per 60 s',
    ]);
  });

  it('holds each call to its own floor while schemas are reused (floors in turn, then again)', () => {
    const bundle = { queues: [queue], routines: [routine({ trigger: { kind: 'cron', cron: '*/10 * * * * *' } })] };
    for (let round = 0; round < 2; round++) {
      expect(parseBundle(bundle, { minFireIntervalMs: 60_000 }).ok).toBe(false);
      expect(parseBundle(bundle).ok).toBe(true);
      expect(parseBundle(bundle, { minFireIntervalMs: 10_000 }).ok).toBe(true);
      expect(parseBundle(bundle, { minFireIntervalMs: 10_001 }).ok).toBe(false);
    }
    // More floors than the memo keeps: it starts over and still answers each.
    for (let floor = 1_000; floor <= 40_000; floor += 1_000) {
      expect(parseBundle(bundle, { minFireIntervalMs: floor }).ok).toBe(floor <= 10_000);
    }
  });

  it('refuses an interval below the floor and an offset outside [0, everyMs)', () => {
    const trigger = { kind: 'interval', everyMs: 10, offsetMs: 20 };
    expect(errorsOf({ queues: [queue], routines: [routine({ trigger })] })).toEqual([
      'routines[nightly-backup].trigger.everyMs: 10 is below the floor of 1000 ms between fires; use everyMs >= 1000',
      'routines[nightly-backup].trigger.offsetMs: 20 must be in [0, everyMs) = [0, 10)',
    ]);
  });

  it.each(['2026-02-30T00:00:00Z', '2026-12-24T18:00:00', 'tomorrow', '2026-12-24T25:00:00Z'])(
    'refuses a once trigger at %s',
    (at) => {
      const errors = errorsOf({ queues: [queue], routines: [routine({ trigger: { kind: 'once', at } })] });
      expect(errors).toEqual([
        `routines[nightly-backup].trigger.at: ${JSON.stringify(at)} is not an ISO 8601 instant with an offset; e.g. "2026-12-24T18:00:00Z"`,
      ]);
    },
  );

  it('refuses an unknown trigger kind, naming the valid ones', () => {
    const errors = errorsOf({ queues: [queue], routines: [routine({ trigger: { kind: 'weekly' } })] });
    expect(errors).toEqual([
      'routines[nightly-backup].trigger.kind: kind must be one of "cron", "interval", "once", "manual"',
    ]);
  });

  it('refuses reserved keys anywhere in a payload, with their path', () => {
    const payload = JSON.parse('{"a":{"list":[{"__proto__":{"x":1}}]},"constructor":1,"ok":{"prototype":2}}');
    expect(errorsOf({ queues: [queue], routines: [routine({ payload })] })).toEqual([
      'routines[nightly-backup].payload.a.list[0].__proto__: key "__proto__" is not allowed (reserved: __proto__, constructor, prototype)',
      'routines[nightly-backup].payload.constructor: key "constructor" is not allowed (reserved: __proto__, constructor, prototype)',
      'routines[nightly-backup].payload.ok.prototype: key "prototype" is not allowed (reserved: __proto__, constructor, prototype)',
    ]);
  });

  it('suggests the right spelling of an unknown field', () => {
    expect(errorsOf({ queues: [queue], routines: [routine({ catchupPolicy: 'all' })] })).toEqual([
      'routines[nightly-backup]: unknown field "catchupPolicy"; did you mean "catchUpPolicy"?',
    ]);
    expect(errorsOf({ queues: [{ name: 'q', colour: 'red' }] })[0]).toMatch(
      /^queues\[q\]: unknown field "colour"; valid fields: name, concurrency, /,
    );
    expect(errorsOf({ queues: [{ name: 'q', backoff: { kind: 'fixed' } }] })).toEqual([
      'queues[q].backoff: unknown field "kind"; valid fields: type, delayMs, maxDelayMs, jitter',
    ]);
  });

  it('suggests the spelling of a field nested in the trigger the input chose', () => {
    const trigger = { kind: 'cron', cron: '0 2 * * *', cronTz: 'UTC' };
    expect(errorsOf({ queues: [queue], routines: [routine({ trigger })] })).toEqual([
      'routines[nightly-backup].trigger: unknown field "cronTz"; did you mean "cron"?',
    ]);
    const interval = { kind: 'interval', everyMS: 5000 };
    expect(errorsOf({ queues: [queue], routines: [routine({ trigger: interval })] })).toContain(
      'routines[nightly-backup].trigger: unknown field "everyMS"; did you mean "everyMs"?',
    );
  });

  it('gives every problem as a path and a message too', () => {
    const r = parseBundle({
      queues: [queue],
      routines: [routine({ queue: 'nope' }), routine({ name: 'x', jobTyp: 1 })],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toContainEqual({
      path: 'routines[x]',
      message: 'unknown field "jobTyp"; did you mean "jobType"?',
    });
    expect(r.errors).toEqual(r.issues.map((i) => `${i.path}: ${i.message}`));
  });

  it('refuses duplicate names and undefined queues', () => {
    const errors = errorsOf({
      queues: [queue, queue],
      routines: [routine(), routine(), routine({ name: 'other', queue: 'nope' })],
    });
    expect(errors).toEqual([
      'queues[default].name: defined more than once; queue names must be unique',
      'routines[nightly-backup].name: defined more than once; routine names must be unique',
      'routines[other].queue: queue "nope" is not defined; defined queues: default',
    ]);
  });

  it('accepts queues known outside the bundle, or skips the reference check', () => {
    const raw = { routines: [routine({ queue: 'remote' })] };
    expect(errorsOf(raw)).toEqual([
      'routines[nightly-backup].queue: queue "remote" is not defined; defined queues: (none)',
    ]);
    expect(parseBundle(raw, { knownQueues: ['remote'] }).ok).toBe(true);
    expect(parseBundle(raw, { checkQueueRefs: false }).ok).toBe(true);
  });

  it("says what is wrong in Drover's words, not the schema library's", () => {
    const raw = {
      queues: [{ name: 'default', concurrency: 0, globalConcurrency: 1.5 }],
      routines: [
        { name: 'a', queue: 'default', trigger: { kind: 'cron' } },
        { name: 'b', jobType: '', queue: 'default', system: 'yes', trigger: { kind: 'manual' } },
        { name: 7, jobType: 'noop', queue: 'default', trigger: { kind: 'manual' } },
      ],
    };
    const errors = errorsOf(raw);
    expect(errors).toEqual([
      'queues[default].concurrency: must be greater than 0',
      'queues[default].globalConcurrency: must be an integer, not 1.5',
      'routines[a].jobType: missing (a string is required)',
      'routines[a].trigger.cron: missing (a string is required)',
      'routines[b].jobType: must not be empty',
      'routines[b].system: must be true or false, not a string',
      'routines[2].name: must be a string, not an integer',
    ]);
    expect(errors.join('\n')).not.toMatch(/Invalid input|expected \w+, received/);
  });

  it('reports every problem at once: a misspelt field does not hide an undefined queue or a duplicate', () => {
    const raw = {
      queues: [{ name: 'default' }, { name: 'Bad Name' }, { name: 'reports', concurrency: 'x' }],
      routines: [
        { name: 'a', jobType: 'noop', queue: 'nope', trigger: { kind: 'cron', cronn: '0 2 * * *' } },
        { name: 'b', jobType: 'noop', queue: 'reports', trigger: { kind: 'manual' } },
        { name: 'b', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' } },
      ],
    };
    expect(errorsOf(raw)).toEqual([
      expect.stringMatching(/^queues\[Bad Name\]\.name: "Bad Name" is not a valid name/),
      'queues[reports].concurrency: must be a number, not a string',
      'routines[a].trigger.cron: missing (a string is required)',
      'routines[a].trigger: unknown field "cronn"; did you mean "cron"?',
      'routines[b].name: defined more than once; routine names must be unique',
      // A queue whose own name is wrong defines nothing; one with another wrong field does.
      'routines[a].queue: queue "nope" is not defined; defined queues: default, reports',
    ]);
  });

  it('refuses non-object input and wrong shapes with what was expected', () => {
    expect(errorsOf('queues: []')).toEqual(['(bundle): must be a mapping (field: value), not a string']);
    expect(errorsOf({ queues: {} })).toEqual(['queues: must be a list, not a mapping']);
    expect(errorsOf({ queues: [{ name: 'q', backoff: { delayMs: 5000, maxDelayMs: 1000 } }] })).toEqual([
      'queues[q].backoff.maxDelayMs: must be >= delayMs',
    ]);
  });

  it('accepts buffer-one, and refuses it for a selector routine naming the field, the value and the choices', () => {
    const r = { name: 'b', jobType: 'noop', queue: 'q', trigger: { kind: 'interval', everyMs: 60_000 } };
    const ok = parseBundle({ queues: [{ name: 'q' }], routines: [{ ...r, concurrencyPolicy: 'buffer-one' }] });
    expect(ok.ok && ok.bundle.routines[0]!.concurrencyPolicy).toBe('buffer-one');
    const selector = { ...r, concurrencyPolicy: 'buffer-one', selector: { provider: 'p' } };
    expect(errorsOf({ queues: [{ name: 'q' }], routines: [selector] })).toEqual([
      'routines[b].concurrencyPolicy: "buffer-one" is not available to a selector routine (a tick may start several keyed runs); use one of allow, forbid, replace',
    ]);
  });
});
