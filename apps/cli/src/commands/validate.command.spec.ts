import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drover } from '../testing/fake-io';

const dir = mkdtempSync(join(tmpdir(), 'drover-validate-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const good = `
queues:
  - name: default
routines:
  - name: nightly
    jobType: noop
    queue: default
    trigger: { kind: cron, cron: "0 2 * * *", tz: Europe/Berlin }
  - name: ping
    jobType: noop
    queue: default
    trigger: { kind: interval, everyMs: 60000 }
`;
const example = join(__dirname, '..', '..', '..', '..', 'examples', 'drover.yaml');

describe('drover validate', () => {
  it('says a valid file is valid and counts its queues and routines', async () => {
    const path = file('good.yaml', good);
    expect(await drover(['validate', path])).toEqual({
      code: 0,
      out: `${path}: valid — 1 queue, 2 routines\n`,
      err: '',
    });
  });

  it('accepts the shipped example', async () => {
    const run = await drover(['validate', example]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/valid — 1 queue, 3 routines/);
  });

  it('names the file, the field and the spelling it probably meant for an unknown field', async () => {
    const path = file('typo.yaml', good.replace('tz: Europe/Berlin', 'tzz: Europe/Berlin'));
    const run = await drover(['validate', path]);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toBe(
      `${path}: routines[nightly].trigger: unknown field "tzz"; did you mean "tz"?\n` +
        `drover: ${path} is invalid (1 problem)\n`,
    );
  });

  it('reports a bad cron with what is wrong in it', async () => {
    const path = file('cron.yaml', good.replace('0 2 * * *', '61 2 * * *'));
    const run = await drover(['validate', path]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `${path}: routines[nightly].trigger.cron: "61 2 * * *" is not a valid cron expression (minute must be 0-59)`,
    );
  });

  it('shows every problem, not only the first few', async () => {
    const routines = Array.from(
      { length: 6 },
      (_, i) => `  - { name: r${i}, jobType: noop, queue: nope, trigger: { kind: manual } }`,
    );
    const path = file('many.yaml', `queues: [{ name: default }]\nroutines:\n${routines.join('\n')}\n`);
    const run = await drover(['validate', path]);
    expect(run.code).toBe(1);
    const lines = run.err.split('\n').filter((l) => l.includes('is not defined'));
    expect(lines).toHaveLength(6);
    expect(lines[5]).toBe(`${path}: routines[r5].queue: queue "nope" is not defined; defined queues: default`);
    expect(run.err).toContain('is invalid (6 problems)');
  });

  it('reports broken YAML and JSON syntax', async () => {
    const yaml = file('broken.yaml', 'queues: [');
    expect((await drover(['validate', yaml])).err).toMatch(new RegExp(`^${yaml}: is not valid YAML: `));
    const json = file('broken.json', '{"queues": ');
    const run = await drover(['validate', json]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(new RegExp(`^${json}: is not valid JSON: `));
  });

  it('names a missing file and exits 1', async () => {
    const path = join(dir, 'missing.yaml');
    const run = await drover(['validate', path]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(`${path}: cannot read: no such file\ndrover: ${path} is invalid (1 problem)\n`);
  });

  it('reads stdin for -', async () => {
    expect(await drover(['validate', '-'], { stdin: good })).toMatchObject({
      code: 0,
      out: '<stdin>: valid — 1 queue, 2 routines\n',
    });
    const run = await drover(['validate', '-'], { stdin: 'routines: [{ name: x }]' });
    expect(run.code).toBe(1);
    expect(run.err).toContain('<stdin>: routines[x].jobType: ');
  });

  it('gives scripts {file, valid, queues, routines} as JSON', async () => {
    const path = file('good2.yaml', good);
    const run = await drover(['-o', 'json', 'validate', path]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual({
      file: path,
      valid: true,
      queues: ['default'],
      routines: ['nightly', 'ping'],
    });
  });

  it('gives scripts {file, valid: false, errors} as JSON on stdout, and still exits 1', async () => {
    const path = file('bad.json', JSON.stringify({ queues: [{ name: 'default', concurency: 2 }] }));
    const run = await drover(['validate', path, '-o', 'json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.out)).toEqual({
      file: path,
      valid: false,
      errors: [{ path: 'queues[default]', message: 'unknown field "concurency"; did you mean "concurrency"?' }],
    });
  });

  it('checks several files, lists one report per file and fails if any is invalid', async () => {
    const ok = file('ok.yaml', good);
    const bad = file('bad.yaml', 'queues: [{ name: Bad Name }]');
    const run = await drover(['-o', 'yaml', 'validate', ok, bad]);
    expect(run.code).toBe(1);
    expect(run.out).toContain(`- file: ${ok}\n  valid: true`);
    expect(run.out).toContain(`- file: ${bad}\n  valid: false`);
    expect(run.err).toMatch(/drover: 1 of 2 files are invalid\n$/);
  });

  it('is a usage error without a file', async () => {
    const run = await drover(['validate']);
    expect(run.code).toBe(2);
    expect(run.err).toContain("missing required argument 'file'");
  });
});
