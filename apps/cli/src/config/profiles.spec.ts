import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError, UsageError } from '../cli-error';
import { DEFAULT_API_URL, profileFilePath, resolveTarget } from './profiles';

describe('resolveTarget', () => {
  const dir = mkdtempSync(join(tmpdir(), 'drover-cli-profiles-'));
  const file = join(dir, 'cli.yaml');
  writeFileSync(join(dir, 'prod.token'), 'from-file\n');
  writeFileSync(
    file,
    [
      'current: local',
      'profiles:',
      '  local: { url: "http://127.0.0.1:3000" }',
      '  prod: { url: "https://drover.internal", tokenFile: prod.token }',
    ].join('\n'),
  );
  const env = { DROVER_CLI_CONFIG: file };

  it('uses the current profile when nothing else says', () => {
    expect(resolveTarget({}, env)).toEqual({ baseUrl: 'http://127.0.0.1:3000', profile: 'local' });
  });

  it('lets DROVER_PROFILE pick a profile, whose token file is read relative to the profile file', () => {
    expect(resolveTarget({}, { ...env, DROVER_PROFILE: 'prod' })).toEqual({
      baseUrl: 'https://drover.internal',
      token: 'from-file',
      profile: 'prod',
    });
  });

  it('puts flags over the environment over the profile', () => {
    const e = { ...env, DROVER_PROFILE: 'prod', DROVER_API_URL: 'http://127.0.0.1:9000', DROVER_TOKEN: 'env' };
    expect(resolveTarget({}, e)).toMatchObject({ baseUrl: 'http://127.0.0.1:9000', token: 'env' });
    expect(resolveTarget({ apiUrl: 'http://127.0.0.1:9001', token: 'flag' }, e)).toMatchObject({
      baseUrl: 'http://127.0.0.1:9001',
      token: 'flag',
    });
  });

  it('defaults to the quick start api without any file', () => {
    expect(resolveTarget({}, { DROVER_CLI_CONFIG: join(dir, 'none.yaml') })).toEqual({ baseUrl: DEFAULT_API_URL });
  });

  it('names an unknown profile and lists the known ones', () => {
    expect(() => resolveTarget({ profile: 'staging' }, env)).toThrow(UsageError);
    expect(() => resolveTarget({ profile: 'staging' }, env)).toThrow(/no profile "staging" .*profiles: local, prod/);
  });

  it('names the field of a broken profile file', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'profiles:\n  x: { url: "http://127.0.0.1:1", tokne: "t" }\n');
    expect(() => resolveTarget({}, { DROVER_CLI_CONFIG: bad })).toThrow(CliError);
    expect(() => resolveTarget({}, { DROVER_CLI_CONFIG: bad })).toThrow(/profiles\.x/);
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => resolveTarget({ apiUrl: 'ftp://127.0.0.1' }, env)).toThrow(/must start with http/);
    expect(() => resolveTarget({ apiUrl: 'localhost:3000x' }, env)).toThrow(UsageError);
  });

  it('finds the file under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(profileFilePath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/drover/cli.yaml');
    expect(profileFilePath({ HOME: '/h' })).toBe('/h/.config/drover/cli.yaml');
  });
});
