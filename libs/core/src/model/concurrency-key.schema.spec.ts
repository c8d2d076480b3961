import { queueSchema } from './queue.schema';
import {
  concurrencyKeyPolicySchema,
  MAX_CONCURRENCY_KEY_LENGTH,
  resolveConcurrencyKey,
} from './concurrency-key.schema';

describe('concurrencyKeyPolicySchema', () => {
  it('takes the option or a dotted payload path and a positive limit', () => {
    expect(concurrencyKeyPolicySchema.parse({ source: 'option', limit: 2 })).toEqual({ source: 'option', limit: 2 });
    expect(concurrencyKeyPolicySchema.parse({ source: 'payload.tenant.id', limit: 1 }).source).toBe(
      'payload.tenant.id',
    );
  });

  it.each([
    [{ source: 'payload', limit: 1 }],
    [{ source: 'payload.', limit: 1 }],
    [{ source: 'tenant', limit: 1 }],
    [{ source: 'option', limit: 0 }],
    [{ source: 'option', limit: 1.5 }],
    [{ source: 'option' }],
    [{ source: 'option', limit: 1, extra: true }],
  ])('refuses %j', (input) => {
    expect(concurrencyKeyPolicySchema.safeParse(input).success).toBe(false);
  });

  it('is an optional queue policy field', () => {
    expect(queueSchema.parse({ name: 'q' }).concurrencyKey).toBeUndefined();
    expect(queueSchema.parse({ name: 'q', concurrencyKey: { source: 'option', limit: 3 } }).concurrencyKey).toEqual({
      source: 'option',
      limit: 3,
    });
  });
});

describe('resolveConcurrencyKey', () => {
  const byTenant = { source: 'payload.tenant', limit: 2 };

  it('gives no key without a policy, whatever the run carries', () => {
    expect(resolveConcurrencyKey(undefined, { tenant: 'a' }, 'b')).toEqual({});
  });

  it('reads the enqueue option', () => {
    expect(resolveConcurrencyKey({ source: 'option', limit: 1 }, { tenant: 'a' }, 'b')).toEqual({ key: 'b' });
    expect(resolveConcurrencyKey({ source: 'option', limit: 1 }, { tenant: 'a' }, undefined)).toEqual({});
  });

  it('reads a payload field, nested too, and a number as its text', () => {
    expect(resolveConcurrencyKey(byTenant, { tenant: 'acme' }, undefined)).toEqual({ key: 'acme' });
    expect(resolveConcurrencyKey(byTenant, { tenant: 42 }, 'ignored')).toEqual({ key: '42' });
    expect(resolveConcurrencyKey({ source: 'payload.a.b', limit: 1 }, { a: { b: 'x' } }, undefined)).toEqual({
      key: 'x',
    });
  });

  it('leaves a run whose field is missing or null unlimited', () => {
    expect(resolveConcurrencyKey(byTenant, { other: 1 }, undefined)).toEqual({});
    expect(resolveConcurrencyKey(byTenant, { tenant: null }, undefined)).toEqual({});
    expect(resolveConcurrencyKey(byTenant, null, undefined)).toEqual({});
    expect(resolveConcurrencyKey(byTenant, ['a'], undefined)).toEqual({});
  });

  it('refuses a key that is not text, empty or too long', () => {
    expect(resolveConcurrencyKey(byTenant, { tenant: { id: 1 } }, undefined)).toHaveProperty('issue.path', ['tenant']);
    expect(resolveConcurrencyKey(byTenant, { tenant: true }, undefined)).toHaveProperty('issue');
    expect(resolveConcurrencyKey(byTenant, { tenant: '' }, undefined)).toHaveProperty('issue');
    const long = 'x'.repeat(MAX_CONCURRENCY_KEY_LENGTH + 1);
    expect(resolveConcurrencyKey({ source: 'option', limit: 1 }, null, long)).toHaveProperty('issue');
    expect(resolveConcurrencyKey(byTenant, { tenant: Number.NaN }, undefined)).toHaveProperty('issue');
  });
});
