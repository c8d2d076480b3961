import { parseBundle } from './bundle.schema';
import { conditionKey, describeCondition, type Condition } from './condition.schema';
import { ROUTINE_DEFAULTS } from './routine.schema';
import { httpConditionVerdict, queueDepthVerdict } from '../policy/condition-verdict';

function parse(condition: unknown) {
  return parseBundle({
    queues: [{ name: 'q' }, { name: 'exports' }],
    routines: [{ name: 'r', jobType: 'noop', queue: 'q', trigger: { kind: 'manual' }, condition }],
  });
}
const errorsOf = (condition: unknown) => {
  const res = parse(condition);
  return res.ok ? [] : res.errors;
};
const conditionOf = (condition: unknown) => {
  const res = parse(condition);
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!.condition;
};

describe('a routine condition', () => {
  it('keeps the name of a registered @Condition valid, as old bundles have it', () => {
    expect(conditionOf('has-new-orders')).toBe('has-new-orders');
    expect('condition' in ROUTINE_DEFAULTS).toBe(false);
  });

  it('takes the built-in kinds as data', () => {
    expect(conditionOf({ kind: 'http', url: 'http://127.0.0.1:8080/ready', headers: { authorization: 'x' } })).toEqual({
      kind: 'http',
      url: 'http://127.0.0.1:8080/ready',
      headers: { authorization: 'x' },
    });
    expect(conditionOf({ kind: 'queue-depth', queue: 'exports', below: 100 })).toEqual({
      kind: 'queue-depth',
      queue: 'exports',
      below: 100,
    });
  });

  it('names the field and the value of what it refuses, with the limits', () => {
    expect(errorsOf({ kind: 'http', url: 'ftp://files/x' })).toEqual([
      expect.stringMatching(/condition\.url.*"ftp:\/\/files\/x" is not an http\(s\) URL/),
    ]);
    expect(errorsOf({ kind: 'http', url: `http://h/${'a'.repeat(2100)}` })).toEqual([
      expect.stringMatching(/condition\.url.*has 2109 characters; the limit is 2048/),
    ]);
    expect(errorsOf({ kind: 'http', url: 'http://h/', headers: { 'X-Drover-Routine': 'forged' } })).toEqual([
      expect.stringMatching(/condition\.headers\.X-Drover-Routine.*X-Drover- namespace/),
    ]);
    expect(errorsOf({ kind: 'http', url: 'http://h/', headers: { a: 'x'.repeat(9000) } })).toEqual([
      expect.stringMatching(/condition\.headers.*the limit is 8192 bytes \(8 KiB\)/),
    ]);
    expect(errorsOf({ kind: 'queue-depth', queue: 'exports', below: 0 })).toEqual([
      expect.stringMatching(/condition\.below.*at least 1/),
    ]);
    expect(errorsOf({ kind: 'queue-depth', queue: 'exports', below: 2_000_000 })).toEqual([
      expect.stringMatching(/condition\.below.*2000000 is over the limit of 1000000/),
    ]);
    expect(errorsOf({ kind: 'queue-depth', queue: 'exports', below: 5, url: 'x' })).toEqual([
      expect.stringMatching(/condition.*url/),
    ]);
    expect(errorsOf({ kind: 'sql', query: 'select 1' })).toEqual([
      expect.stringMatching(/condition.*kind "sql" is not known; it is one of "http", "queue-depth"/),
    ]);
    expect(errorsOf({ kind: 'queue-depth', queue: 'exprots', below: 5 })).toEqual([
      'routines[r].condition.queue: queue "exprots" is not defined; defined queues: exports, q',
    ]);
    expect(errorsOf(42)).toEqual([
      expect.stringMatching(
        /condition.*the name of a registered @Condition or a mapping with kind "http" or "queue-depth"/,
      ),
    ]);
  });
});

describe('conditionKey', () => {
  it('is stable for one condition however its keys are spelled, and never confuses a name with a kind', () => {
    const a: Condition = { kind: 'http', url: 'http://h/', headers: { a: '1', b: '2' } };
    const b: Condition = { headers: { b: '2', a: '1' }, url: 'http://h/', kind: 'http' };
    expect(conditionKey(a)).toBe(conditionKey(b));
    expect(conditionKey({ kind: 'http', url: 'http://h/other' })).not.toBe(conditionKey(a));
    expect(conditionKey({ kind: 'queue-depth', queue: 'q', below: 1 })).not.toBe(
      conditionKey({ kind: 'queue-depth', queue: 'q', below: 2 }),
    );
    expect(conditionKey(conditionKey(a).slice('kind:'.length))).not.toBe(conditionKey(a));
  });

  it('describes a condition in one line without its headers', () => {
    expect(describeCondition('has-new-orders')).toBe('has-new-orders');
    expect(describeCondition({ kind: 'http', url: 'http://h/ready', headers: { authorization: 'secret' } })).toBe(
      'http GET http://h/ready',
    );
    expect(describeCondition({ kind: 'queue-depth', queue: 'exports', below: 100 })).toBe('queue-depth exports < 100');
  });
});

describe('httpConditionVerdict', () => {
  it('runs or skips on a 2xx {"run": boolean}, other members ignored', () => {
    expect(httpConditionVerdict(200, '{"run":true}', false)).toEqual({ run: true });
    expect(httpConditionVerdict(204 + 2, '{"run":false,"why":"no orders"}', false)).toEqual({ run: false });
  });

  it('fails the launch on anything else, saying what came', () => {
    expect(httpConditionVerdict(503, '{"run":true}', false)).toEqual({
      error: expect.stringMatching(/^answered 503;/),
    });
    expect(httpConditionVerdict(302, '', false)).toEqual({
      error: expect.stringMatching(/redirects are not followed/),
    });
    expect(httpConditionVerdict(200, 'yes', false)).toEqual({ error: expect.stringMatching(/not JSON/) });
    expect(httpConditionVerdict(200, '{"run":"true"}', false)).toEqual({
      error: expect.stringMatching(/boolean "run"/),
    });
    expect(httpConditionVerdict(200, '[true]', false)).toEqual({ error: expect.stringMatching(/boolean "run"/) });
    expect(httpConditionVerdict(200, 'null', false)).toEqual({ error: expect.stringMatching(/boolean "run"/) });
    expect(httpConditionVerdict(200, '{"run":tr', true)).toEqual({ error: expect.stringMatching(/over 65536 bytes/) });
  });
});

describe('queueDepthVerdict', () => {
  it('runs strictly below the bound', () => {
    expect(queueDepthVerdict(99, 100)).toEqual({ run: true });
    expect(queueDepthVerdict(100, 100)).toEqual({ run: false });
  });
});
