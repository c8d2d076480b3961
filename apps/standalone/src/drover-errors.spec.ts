import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as builtins from '@drover/builtins';
import * as client from '@drover/client';
import * as config from '@drover/config';
import * as core from '@drover/core';
import { DROVER_ERROR_CODES, DroverError } from '@drover/core';
import * as redis from '@drover/redis';
import * as scheduler from '@drover/scheduler';
import * as store from '@drover/store';
import * as workerRuntime from '@drover/worker-runtime';
// Thrown inside their roles and not exported: they carry codes all the same.
import { OutboundRefusedError } from '../../../libs/builtins/src/http/guarded-lookup';
import { DuplicateNameError } from '../../../libs/scheduler/src/discovery/named-methods';
import { LaunchTimeoutError } from '../../../libs/scheduler/src/errors/launch-timeout.error';

// The standalone app loads every face, so this is where every library's errors are checked together.

const root = join(__dirname, '..', '..', '..');

/** Errors that are not Drover's domain errors, and why. */
const NOT_DOMAIN_ERRORS: Record<string, string> = {
  ProblemError: 'the api answer itself (a status and a problem document), thrown by routes',
  DroverApiError: "the api client's wrapper of any non-2xx answer; its problem is the server's",
  CliError: "the CLI's one-line failure with an exit code",
};

type ErrorClass = abstract new (...args: never[]) => Error;

const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof Error;

const libs = { core, store, client, redis, config, scheduler, workerRuntime, builtins };

/** Every error class the libraries export (a re-export counted once), with the internal ones above. */
function errorClasses(): ErrorClass[] {
  const found = new Set<ErrorClass>([OutboundRefusedError, DuplicateNameError, LaunchTimeoutError]);
  for (const lib of Object.values(libs))
    for (const value of Object.values(lib)) if (isErrorClass(value)) found.add(value);
  return [...found];
}

const codeOf = (cls: ErrorClass): string => (cls.prototype as DroverError).code;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.(int-|e2e-)?spec\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('Drover errors', () => {
  it('every error class in libs and apps is a DroverError, but for the answer and exit types', () => {
    const plain = ['libs', 'apps'].flatMap((top) =>
      sourceFiles(join(root, top)).flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/class (\w+) extends Error\b/g)]
          .map((m) => m[1]!)
          .filter((name) => name !== 'DroverError' && !(name in NOT_DOMAIN_ERRORS))
          .map((name) => `${name} (${relative(root, file)})`),
      ),
    );
    expect(plain).toEqual([]);
  });

  it('every exported error class is a DroverError with its own code', () => {
    const classes = errorClasses().filter(
      (cls) => cls !== (DroverError as unknown) && !(cls.name in NOT_DOMAIN_ERRORS),
    );
    expect(classes.filter((cls) => !(cls.prototype instanceof DroverError)).map((cls) => cls.name)).toEqual([]);
    const byCode = new Map<string, string[]>();
    for (const cls of classes) byCode.set(codeOf(cls), [...(byCode.get(codeOf(cls)) ?? []), cls.name]);
    expect([...byCode].filter(([, names]) => names.length > 1)).toEqual([]);
    expect([...byCode.keys()].sort()).toEqual([...DROVER_ERROR_CODES].sort());
  });

  it('lists each code once', () => {
    expect(new Set(DROVER_ERROR_CODES).size).toBe(DROVER_ERROR_CODES.length);
  });
});
