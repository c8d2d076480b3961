import { describeSchedule, describeTriggers } from './routine-columns';

type Definition = Parameters<typeof describeSchedule>[0];
const def = (when: Partial<Definition>) => ({ name: 'r', jobType: 'noop', queue: 'default', ...when }) as Definition;

describe('how the CLI shows a routine’s triggers', () => {
  it('shows a single trigger as before, unlabelled', () => {
    const d = def({ trigger: { kind: 'cron', cron: '0 2 * * *', tz: 'Europe/Berlin' } });
    expect(describeTriggers(d)).toEqual([[undefined, 'cron 0 2 * * * Europe/Berlin']]);
    expect(describeSchedule(d)).toBe('cron 0 2 * * * Europe/Berlin');
  });

  it('shows every trigger of a list, labelled as its slots are attributed (name, else index)', () => {
    const d = def({
      triggers: [
        { kind: 'cron', cron: '0 9 * * 1-5', tz: 'Europe/Berlin', name: 'weekdays' },
        { kind: 'interval', everyMs: 3_600_000 },
      ],
    });
    expect(describeTriggers(d)).toEqual([
      ['weekdays', 'cron 0 9 * * 1-5 Europe/Berlin'],
      ['1', 'every 1h'],
    ]);
    expect(describeSchedule(d)).toBe('weekdays: cron 0 9 * * 1-5 Europe/Berlin + 1: every 1h');
  });
});
