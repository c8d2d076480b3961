import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error';
import { checkBundleText, loadBundleFile, parseBundleText } from './config-file';

const dir = mkdtempSync(join(tmpdir(), 'drover-config-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const good = `
queues:
  - name: default
    globalConcurrency: 5
routines:
  - name: nightly-backup
    jobType: http.request
    queue: default
    trigger: { kind: cron, cron: "0 2 * * *", tz: Europe/Berlin }
`;

describe('DROVER_CONFIG files', () => {
  it('loads the shipped example', () => {
    const bundle = loadBundleFile(join(__dirname, '..', '..', '..', 'examples', 'drover.yaml'));
    expect(bundle.routines.map((r) => r.name)).toEqual(['heartbeat', 'slow-tick', 'report-on-demand']);
    expect(bundle.queues[0]).toMatchObject({ name: 'default', globalConcurrency: 10 });
  });

  it('loads YAML and JSON alike', () => {
    const yaml = loadBundleFile(file('a.yaml', good));
    expect(yaml.routines[0]).toMatchObject({ name: 'nightly-backup', queue: 'default' });
    const json = loadBundleFile(file('a.json', JSON.stringify({ queues: [{ name: 'q' }], routines: [] })));
    expect(json.queues[0]!.name).toBe('q');
  });

  it('names the routine and field of a broken cron', () => {
    const bad = good.replace('0 2 * * *', '61 * * * *');
    expect(() => loadBundleFile(file('bad.yaml', bad))).toThrow(ConfigError);
    expect(() => loadBundleFile(file('bad2.yaml', bad))).toThrow(
      /DROVER_CONFIG .*routines\[nightly-backup\]\.trigger\.cron/,
    );
  });

  it('names the variable when the file is missing', () => {
    expect(() => loadBundleFile(join(dir, 'missing.yaml'))).toThrow(/^DROVER_CONFIG: cannot read ".*missing\.yaml"/);
  });

  it('reports YAML and JSON syntax errors with the source', () => {
    expect(() => parseBundleText('queues: [', 'DROVER_CONFIG (x.yaml)')).toThrow(
      /^DROVER_CONFIG \(x\.yaml\): is not valid YAML/,
    );
    expect(() => parseBundleText('{"queues": ', 'body', 'json')).toThrow(/^body: is not valid JSON/);
  });

  it('summarises several errors in one line', () => {
    const text = `routines:\n  - name: Bad Name\n    jobType: noop\n    queue: nope\n    trigger: { kind: interval, everyMs: 1 }\n`;
    const err = (() => {
      try {
        parseBundleText(text, 'DROVER_CONFIG (y.yaml)');
      } catch (e) {
        return e as Error;
      }
      throw new Error('expected an error');
    })();
    expect(err.message.split('\n')).toHaveLength(1);
    expect(err.message).toMatch(/and \d+ more/);
  });

  it('checks text without throwing, giving every problem with its path', () => {
    const text = `routines:\n  - name: a\n    jobType: noop\n    queue: nope\n    trigger: { kind: cron, cron: "0 2 * * *", tzz: UTC }\n`;
    const result = checkBundleText(text);
    expect(result).toEqual({
      ok: false,
      issues: [
        { path: 'routines[a].trigger', message: 'unknown field "tzz"; did you mean "tz"?' },
        { path: 'routines[a].queue', message: 'queue "nope" is not defined; defined queues: (none)' },
      ],
    });
    expect(checkBundleText('{"queues": ', 'json')).toEqual({
      ok: false,
      issues: [{ path: '', message: expect.stringMatching(/^is not valid JSON: /) }],
    });
    expect(checkBundleText(good)).toMatchObject({ ok: true, bundle: { queues: [{ name: 'default' }] } });
  });
});
