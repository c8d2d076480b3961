import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram } from '../program';
import { drover, fakeIo } from '../testing/fake-io';
import { completionTree } from './command-tree';
import { completionScript, type Shell } from './scripts';

const dir = mkdtempSync(join(tmpdir(), 'drover-completion-'));
const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** The script for the real program, API commands included. */
function scriptWithRoutines(shell: Shell): string {
  const { program } = buildProgram(fakeIo().io);
  return completionScript(shell, completionTree(program));
}

/** What bash offers for `words` (the last one being typed), calling the function as `complete` would. */
function bashComplete(script: string, words: string[]): string[] {
  const file = join(dir, `drover-${Math.random().toString(36).slice(2)}.bash`);
  writeFileSync(file, script);
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const res = spawnSync('bash', [
    '--norc',
    '--noprofile',
    '-c',
    `source '${file}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _drover; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ]);
  expect(res.stderr.toString()).toBe('');
  return res.stdout.toString().split('\n').filter(Boolean);
}

describe('drover completion', () => {
  it('completes commands, their subcommands and their options in bash', () => {
    const script = scriptWithRoutines('bash');
    expect(bashComplete(script, ['drover', 'rou'])).toEqual(['routines']);
    expect(bashComplete(script, ['drover', 'routines', 'l'])).toEqual(['ls']);
    expect(bashComplete(script, ['drover', 'routines', 'ls', '--st'])).toEqual(['--status']);
    // Global options and their values are skipped when finding the command.
    expect(bashComplete(script, ['drover', '--profile', 'prod', 'routines', ''])).toEqual([
      'ls',
      'get',
      'apply',
      'put',
      'delete',
      'pause',
      'resume',
      'enable',
      'archive',
      'unarchive',
      'trigger',
      'backfill',
      'preview',
      'history',
      'stats',
      'override',
      'overrides',
      'candidates',
      'slots',
      'skip',
      'skips',
      'help',
    ]);
  });

  it('completes the real commands, option values with fixed choices and the shell names', async () => {
    const run = await drover(['completion', 'bash']);
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(bashComplete(run.out, ['drover', 'pre'])).toEqual(['preview']);
    expect(bashComplete(run.out, ['drover', 'va'])).toEqual(['validate']);
    expect(bashComplete(run.out, ['drover', 'preview', '0 9 * * *', '--t'])).toEqual(['--tz', '--token']);
    expect(bashComplete(run.out, ['drover', '-o', 'j'])).toEqual(['json']);
    expect(bashComplete(run.out, ['drover', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    // After an option that takes a free value, bash falls back to file names (-o default).
    expect(bashComplete(run.out, ['drover', 'preview', '--tz', ''])).toEqual([]);
  });

  it('prints zsh and fish scripts that their shells parse, when those shells are installed', async () => {
    for (const [shell, check] of [
      ['zsh', ['-n']],
      ['fish', ['--no-execute']],
    ] as const) {
      const run = await drover(['completion', shell]);
      expect(run.code).toBe(0);
      expect(run.out).toContain(`drover completion ${shell}`);
      expect(run.out).toMatch(/\bpreview\b/);
      if (!hasShell(shell)) continue; // Not installed here: the bash test covers the shared logic.
      const file = join(dir, `drover.${shell}`);
      writeFileSync(file, run.out);
      const res = spawnSync(shell, [...check, file]);
      expect(res.stderr.toString()).toBe('');
      expect(res.status).toBe(0);
    }
  });

  it('is a usage error for a shell it does not know', async () => {
    const run = await drover(['completion', 'powershell']);
    expect(run.code).toBe(2);
    expect(run.err).toContain('Allowed choices are bash, zsh, fish');
  });
});
