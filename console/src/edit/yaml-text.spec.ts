import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { lineOfField, parseRoutineYaml, routineYaml } from './yaml-text';

/** The quick start's policy file: what a user copies a routine from. */
const POLICY = readFileSync(join(__dirname, '..', '..', '..', 'examples', 'drover.yaml'), 'utf8');
const policyRoutines = (parse(POLICY) as { routines: Record<string, unknown>[] }).routines;

/** The lines of the policy file's routine `name`, as a user would select them: from `start` of its first line. */
function copied(name: string, start: 'line' | 'dash' | 'name'): string {
  const lines = POLICY.split('\n');
  const from = lines.findIndex((l) => l.trim() === `- name: ${name}`);
  let to = from + 1;
  while (to < lines.length && /^ {4}\S/.test(lines[to]!)) to++;
  const block = lines.slice(from, to);
  block[0] = start === 'line' ? block[0]! : start === 'dash' ? block[0]!.trimStart() : block[0]!.replace(/^\s*- /, '');
  return block.join('\n') + '\n';
}

describe('routines as YAML', () => {
  it('writes the common fields first in a stable order, and reads back what it wrote', () => {
    // The api's own order: payload and the policies before the name.
    const stored = {
      payload: { ms: 1500 },
      priority: 'medium',
      labels: {},
      name: 'slow-tick',
      jobType: 'sleep',
      queue: 'default',
      trigger: { kind: 'cron', cron: '*/10 * * * * *' },
    };
    const text = routineYaml(stored);
    expect(text.split('\n').slice(0, 8)).toEqual([
      'name: slow-tick',
      'jobType: sleep',
      'queue: default',
      'trigger:',
      '  kind: cron',
      '  cron: "*/10 * * * * *"',
      'payload:',
      '  ms: 1500',
    ]);
    expect(routineYaml({ ...stored })).toBe(text);
    expect(parseRoutineYaml(text)).toEqual({ ok: true, draft: stored, at: [] });
    expect(routineYaml(undefined)).toBe('');
  });

  it.each(['line', 'dash', 'name'] as const)(
    "takes a routine copied from a policy file (selected from the %s's start) as that file defines it",
    (start) => {
      for (const r of policyRoutines) {
        expect(parseRoutineYaml(copied(String(r.name), start))).toMatchObject({ ok: true, draft: r });
      }
    },
  );

  it('takes a bundle of one routine and the view `drover routines get -o yaml` prints; refuses more than one', () => {
    const one = { name: 'a', jobType: 'noop' };
    expect(parseRoutineYaml('queues: []\nroutines:\n  - name: a\n    jobType: noop\n')).toEqual({
      ok: true,
      draft: one,
      at: ['routines', 0],
    });
    expect(parseRoutineYaml('origin: api\ndefinition:\n  name: a\n  jobType: noop\n')).toMatchObject({ draft: one });
    expect(parseRoutineYaml(POLICY)).toEqual({
      ok: false,
      error: 'a policy bundle with 3 routines: paste one routine from its routines list',
    });
    expect(parseRoutineYaml('- name: a\n- name: b\n')).toMatchObject({ ok: false, error: /^a list of 2 items/ });
    expect(parseRoutineYaml('')).toMatchObject({ ok: false, error: /^not a routine/ });
    expect(parseRoutineYaml('just words')).toMatchObject({ ok: false, error: /^not a routine/ });
  });

  it("names a syntax error's line and column in the parser's words, without the snippet", () => {
    const broken = parseRoutineYaml('name: a\njobType: noop\ntrigger: { kind: cron, cron: "5 * * * *"\nqueue: q\n');
    expect(broken).toMatchObject({ ok: false, spot: { line: 4 } });
    const dup = parseRoutineYaml('name: a\njobType: noop\nname: b\n');
    expect(dup).toEqual({ ok: false, error: 'Map keys must be unique', spot: { line: 3, col: 1, offset: 22 } });
    const tab = parseRoutineYaml('name: a\n\tjobType: noop\n');
    expect(tab).toMatchObject({ ok: false, spot: { line: 2, col: 1 } });
    if (!tab.ok) expect(tab.error).not.toMatch(/line|\n/);
    // Aliases are bounded as in a policy file: a small text cannot grow into a huge definition.
    const a = `[${Array(10).fill('x').join(', ')}]`;
    const bomb = `name: a\nl0: &l0 ${a}\nl1: &l1 [${Array(10).fill('*l0').join(', ')}]\nl2: [${Array(20).fill('*l1').join(', ')}]\n`;
    expect(parseRoutineYaml(bomb)).toMatchObject({ ok: false, error: /alias/i });
  });

  it("finds the line of an api field error's field, or of its nearest parent", () => {
    const text = 'name: a\njobType: noop\ntriggers:\n  - kind: cron\n    cron: x\n  - kind: interval\npayload: {}\n';
    expect(lineOfField(text, 'triggers[0].cron')).toBe(5);
    expect(lineOfField(text, 'triggers.1.kind')).toBe(6);
    expect(lineOfField(text, 'triggers[1].everyMs')).toBe(6);
    expect(lineOfField(text, 'jobType')).toBe(2);
    expect(lineOfField(text, 'queue')).toBeUndefined();
    expect(lineOfField('name: [', 'name')).toBeUndefined();
    // A routine pasted as a list item, its first line not indented like the rest.
    expect(lineOfField(copied('slow-tick', 'dash'), 'trigger.cron')).toBe(4);
  });
});
