import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'apps', 'cli', 'main.js');

/** `drover <args>` as users run it: the built binary, its own process, no cluster. */
function drover(args: string[], opts: { env?: Record<string, string>; input?: string } = {}) {
  const res = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    // A clean environment: no DROVER_* from the developer's shell, and colour forced so NO_COLOR shows.
    env: { PATH: process.env.PATH ?? '', FORCE_COLOR: '1', ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
  });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

describe('the built drover binary, offline', () => {
  beforeAll(() => {
    // The build already ran (npm test builds first; run `npm run build` before this file alone).
    expect(existsSync(BIN)).toBe(true);
  });

  it('validates the shipped example', () => {
    const run = drover(['validate', 'examples/drover.yaml', '--no-color']);
    expect(run).toEqual({ code: 0, out: 'examples/drover.yaml: valid — 1 queue, 3 routines\n', err: '' });
  });

  it('exits 1 on an invalid file and names the field on stderr', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'drover-cli-e2e-')), 'drover.yaml');
    writeFileSync(
      file,
      'queues: [{ name: default }]\nroutines:\n  - { name: nightly, jobType: noop, queue: default, trigger: { kind: cron, cron: "0 2 * * *", Tz: UTC } }\n',
    );
    const run = drover(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toBe(
      `${file}: routines[nightly].trigger: unknown field "Tz"; did you mean "tz"?\n` +
        `drover: ${file} is invalid (1 problem)\n`,
    );
  });

  it("reports every problem of a file in one pass, in Drover's words", () => {
    // A misspelt `cronn:` used to hide the undefined queue until it was fixed and the file run again.
    const file = join(mkdtempSync(join(tmpdir(), 'drover-cli-e2e-')), 'drover.yaml');
    writeFileSync(
      file,
      'queues: [{ name: default, concurrency: 0 }]\nroutines:\n' +
        '  - { name: nightly, jobType: noop, queue: reports, trigger: { kind: cron, cronn: "0 2 * * *" } }\n' +
        '  - { name: ping, queue: default, trigger: { kind: interval, everyMs: "5s" } }\n',
    );
    const run = drover(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toBe(
      [
        `${file}: queues[default].concurrency: must be greater than 0`,
        `${file}: routines[nightly].trigger.cron: missing (a string is required)`,
        `${file}: routines[nightly].trigger: unknown field "cronn"; did you mean "cron"?`,
        `${file}: routines[ping].jobType: missing (a string is required)`,
        `${file}: routines[ping].trigger.everyMs: must be a number, not a string`,
        `${file}: routines[nightly].queue: queue "reports" is not defined; defined queues: default`,
        `drover: ${file} is invalid (6 problems)`,
        '',
      ].join('\n'),
    );
    expect(run.err).not.toMatch(/Invalid input|received/);
  });

  it("refuses a routine over core's limits, naming the field and the limit (as the api and the client do)", () => {
    const labels = Array.from({ length: 65 }, (_, i) => `      k${i}: v`).join('\n');
    const file = join(mkdtempSync(join(tmpdir(), 'drover-cli-e2e-')), 'drover.yaml');
    writeFileSync(
      file,
      `queues: [{ name: default }]\nroutines:\n  - name: labelled\n    jobType: noop\n    queue: default\n` +
        `    trigger: { kind: manual }\n    owner: ${'o'.repeat(201)}\n    labels:\n${labels}\n`,
    );
    const run = drover(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `${file}: routines[labelled].owner: has 201 characters; the limit is 200\n` +
        `${file}: routines[labelled].labels: has 65 labels; the limit is 64\n` +
        `drover: ${file} is invalid (2 problems)\n`,
    );
  });

  it('reads a policy from stdin and answers JSON for scripts', () => {
    const run = drover(['-o', 'json', 'validate', '-'], { input: 'queues: [{ name: a }, { name: b }]\n' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ file: '<stdin>', valid: true, queues: ['a', 'b'], routines: [] });
  });

  it('previews fire times across a DST change, coloured unless NO_COLOR is set', () => {
    const args = ['preview', '30 2 * * *', '--tz', 'Europe/Berlin', '--from', '2026-03-27T12:00:00Z', '--count', '3'];
    const coloured = drover(args);
    expect(coloured.code).toBe(0);
    expect(coloured.out).toContain('\u001b[33mgap\u001b[39m');
    const plain = drover(args, { env: { NO_COLOR: '1' } });
    expect(plain.code).toBe(0);
    expect(plain.out).not.toContain('\u001b[');
    expect(plain.out).toMatch(/^2\s+2026-03-29T01:00:00\.000Z\s+2026-03-29T03:00:00\.000\+02:00\s+\S.*\s+gap$/m);
    expect(plain.out).toContain('gap: that wall time does not exist that day');
  });

  it('exits 2 with the reason for a bad cron', () => {
    const run = drover(['preview', '0 25 * * *']);
    expect(run).toEqual({
      code: 2,
      out: '',
      err: 'drover: <cron>: "0 25 * * *" is not a valid cron expression (hour must be 0-23); e.g. "0 2 * * *"\n',
    });
  });

  it('prints a bash completion script that bash accepts', () => {
    const run = drover(['completion', 'bash']);
    expect(run.code).toBe(0);
    const check = spawnSync('bash', ['--norc', '--noprofile', '-n'], { input: run.out, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
