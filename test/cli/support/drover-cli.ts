import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { ApiRole } from '@drover/config';
import type { ApiCluster } from '../../api/support/api-cluster';

/** The built binary, run as users run it (`drover` is the root package's bin). */
export const CLI = join(__dirname, '..', '..', '..', 'dist', 'apps', 'cli', 'main.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  env?: Record<string, string>;
  /** Text written to stdin, which is then closed (stdin is never a terminal here). */
  input?: string;
  timeoutMs?: number;
}

/**
 * Runs `drover <args>` in a child process with a clean environment (no profile file, no colour
 * unless asked) and resolves with its exit code and output.
 */
export function drover(args: string[], opts: CliRunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: '/nonexistent',
        DROVER_CLI_CONFIG: '/nonexistent/drover-cli.yaml',
        ...opts.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`drover ${args.join(' ')} took over ${opts.timeoutMs ?? 30_000} ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** `drover` pointed at an ApiCluster's api with a role's token, through the environment. */
export function droverAs(api: ApiCluster, role: ApiRole | 'none' = 'admin') {
  const env: Record<string, string> = { DROVER_API_URL: api.api.baseUrl };
  if (role !== 'none') env.DROVER_TOKEN = api.tokens[role];
  return (args: string[], opts: CliRunOptions = {}) => drover(args, { ...opts, env: { ...env, ...opts.env } });
}
