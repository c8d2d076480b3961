import { existsSync } from 'node:fs';

/** Where Debian's `faketime` package puts the preload library, per architecture. */
const LIBFAKETIME = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
];

/**
 * Environment that makes a child process's wall clock run `offsetSeconds` off the real one
 * (libfaketime), while its monotonic clock stays true — a machine whose NTP is broken.
 */
export function fakeTimeEnv(offsetSeconds: number): Record<string, string> {
  const lib = LIBFAKETIME.find((p) => existsSync(p));
  if (!lib) throw new Error('libfaketime not found: install the Debian package `faketime` (.ci/run does)');
  return {
    LD_PRELOAD: lib,
    FAKETIME: `${offsetSeconds >= 0 ? '+' : ''}${offsetSeconds}s`,
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  };
}
