import { describe, expect, it } from '@jest/globals';
import { draftText, fieldName, ordered, parseDraft, sameDraft, triggerOfKind, withField } from './draft';

describe('routine drafts', () => {
  it('parses an object and says what is wrong with anything else', () => {
    expect(parseDraft('{"name": "a"}')).toEqual({ ok: true, draft: { name: 'a' } });
    expect(parseDraft('{"name": ')).toMatchObject({ ok: false, error: expect.stringMatching(/^not valid JSON: /) });
    expect(parseDraft('[1]')).toMatchObject({ ok: false, error: expect.stringMatching(/^not a JSON object/) });
    expect(parseDraft('null')).toMatchObject({ ok: false });
  });

  it('sets and removes a field in place, and writes one field a line', () => {
    const d = { name: 'a', jobType: 'noop', queue: 'q' };
    expect(Object.keys(withField(d, 'jobType', 'sleep'))).toEqual(['name', 'jobType', 'queue']);
    expect(withField(d, 'queue', undefined)).toEqual({ name: 'a', jobType: 'noop' });
    expect(draftText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(draftText(undefined)).toBe('');
  });

  it('switches trigger kinds keeping what the new kind takes', () => {
    expect(triggerOfKind('cron', { kind: 'cron', cron: '5 * * * *', tz: 'Europe/Berlin' })).toEqual({
      kind: 'cron',
      cron: '5 * * * *',
      tz: 'Europe/Berlin',
    });
    expect(triggerOfKind('interval', { kind: 'cron', cron: '5 * * * *' })).toEqual({
      kind: 'interval',
      everyMs: 3_600_000,
    });
    expect(triggerOfKind('manual', { kind: 'interval', everyMs: 5 })).toEqual({ kind: 'manual' });
  });

  it("names the api's field errors as the definition's fields, from a what-if bundle or a PUT", () => {
    expect(fieldName('body.routines.0.trigger.cron')).toBe('trigger.cron');
    expect(fieldName('body.routines[nightly-backup].trigger.cron')).toBe('trigger.cron');
    expect(fieldName('body.routines[0].queue')).toBe('queue');
    expect(fieldName('body.trigger.cron')).toBe('trigger.cron');
    expect(fieldName('body')).toBe('the definition');
  });

  it('puts the common fields first, the rest as stored, and compares definitions whatever their key order', () => {
    const stored = { payload: { a: 1 }, maxCatchUp: 5, trigger: { kind: 'manual' }, name: 'n', jobType: 'j' };
    expect(Object.keys(ordered(stored))).toEqual(['name', 'jobType', 'trigger', 'payload', 'maxCatchUp']);
    expect(draftText(stored).split('\n')[1]).toBe('  "name": "n",');
    expect(sameDraft(stored, ordered(stored))).toBe(true);
    expect(sameDraft(stored, { ...stored, payload: { a: 2 } })).toBe(false);
    expect(sameDraft(stored, { ...stored, labels: {} })).toBe(false);
    expect(sameDraft({ l: [1, 2] }, { l: [2, 1] })).toBe(false);
    expect(sameDraft({ l: [] }, { l: {} })).toBe(false);
    expect(sameDraft({ a: null }, { a: undefined })).toBe(false);
  });
});
