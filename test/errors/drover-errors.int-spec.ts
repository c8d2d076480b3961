import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as builtins from '@drover/builtins';
import * as client from '@drover/client';
import * as config from '@drover/config';
import * as core from '@drover/core';
import { DROVER_ERROR_CODES, DroverError } from '@drover/core';
import * as redis from '@drover/redis';
import * as scheduler from '@drover/scheduler';
import {
  DuplicateOverrideError,
  NotAwaitingApprovalError,
  NotParkedError,
  RoutineNotTriggerableError,
  TriggerKeyConflictError,
  UnknownQueueError,
} from '@drover/store';
import * as workerRuntime from '@drover/worker-runtime';

/**
 * Every library's errors checked together (no library may import all the others): each error class
 * is a DroverError with a code of its own, and every code of core's list is carried by a class.
 * docs/errors.md says how to add one.
 */

const root = join(__dirname, '..', '..');

/** Errors that are not Drover's domain errors, and why. */
const NOT_DOMAIN_ERRORS: Record<string, string> = {
  ProblemError: 'the api answer itself (a status and a problem document), thrown by routes',
  DroverApiError: "the api client's wrapper of any non-2xx answer; its problem is the server's",
  CliError: "the CLI's one-line failure with an exit code",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.(int-|e2e-)?spec\.ts$/.test(entry.name) ? [path] : [];
  });
}

const sources = ['libs', 'apps'].flatMap((top) =>
  sourceFiles(join(root, top)).map((file) => ({ file: relative(root, file), text: readFileSync(file, 'utf8') })),
);

/** Each code declared in the source (`get code() { return '…' as const; }`), with the classes declaring it. */
function declaredCodes(): Map<string, string[]> {
  const byCode = new Map<string, string[]>();
  const declaration = /class (\w+) extends \w+ \{\s*get code\(\) \{\s*return '([^']+)' as const;/g;
  for (const { text } of sources) {
    for (const [, cls, code] of text.matchAll(declaration)) byCode.set(code!, [...(byCode.get(code!) ?? []), cls!]);
  }
  return byCode;
}

type ErrorClass = abstract new (...args: never[]) => Error;

const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof Error;

/** Every error class the libraries export (a re-export counted once). */
function exportedErrorClasses(): ErrorClass[] {
  const store = {
    DuplicateOverrideError,
    NotAwaitingApprovalError,
    NotParkedError,
    RoutineNotTriggerableError,
    TriggerKeyConflictError,
    UnknownQueueError,
  };
  const found = new Set<ErrorClass>();
  for (const lib of [core, store, client, redis, config, scheduler, workerRuntime, builtins]) {
    for (const value of Object.values(lib)) if (isErrorClass(value)) found.add(value);
  }
  return [...found].filter((cls) => cls !== (DroverError as unknown) && !(cls.name in NOT_DOMAIN_ERRORS));
}

describe('Drover errors', () => {
  it('every error class in libs and apps is a DroverError, but for the answer and exit types', () => {
    const plain = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/class (\w+) extends Error\b/g)]
        .map((m) => m[1]!)
        .filter((name) => name !== 'DroverError' && !(name in NOT_DOMAIN_ERRORS))
        .map((name) => `${name} (${file})`),
    );
    expect(plain).toEqual([]);
  });

  it('every code is declared by exactly one class, and every declared code is in the list', () => {
    const byCode = declaredCodes();
    expect([...byCode].filter(([, classes]) => classes.length > 1)).toEqual([]);
    expect([...byCode.keys()].sort()).toEqual([...DROVER_ERROR_CODES].sort());
  });

  it('every exported error class is a DroverError carrying the code its source declares', () => {
    const declared = new Map([...declaredCodes()].map(([code, [cls]]) => [cls!, code]));
    const classes = exportedErrorClasses();
    expect(classes.length).toBeGreaterThan(20);
    expect(classes.filter((cls) => !(cls.prototype instanceof DroverError)).map((cls) => cls.name)).toEqual([]);
    const codeOf = (cls: ErrorClass) => (cls.prototype as DroverError).code;
    expect(classes.filter((cls) => declared.get(cls.name) !== codeOf(cls)).map((cls) => cls.name)).toEqual([]);
  });

  it('lists each code once', () => {
    expect(new Set(DROVER_ERROR_CODES).size).toBe(DROVER_ERROR_CODES.length);
  });
});
