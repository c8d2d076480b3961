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

/** glibc's malloc-debug shim, per architecture (glibc 2.34+). */
const MALLOC_DEBUG = [
  '/lib/x86_64-linux-gnu/libc_malloc_debug.so.0',
  '/lib/aarch64-linux-gnu/libc_malloc_debug.so.0',
  '/usr/lib/libc_malloc_debug.so.0',
];

/**
 * {@link fakeTimeEnv} for a redis-server, whose clock is the cluster's (Redis TIME). Debian's
 * redis-server allocates with jemalloc, which reads the clock while libfaketime is still starting
 * up, and libfaketime then gives up ("Unexpected recursive calls to clock_gettime()"). Preloading
 * glibc's malloc-debug shim first (it only passes calls on unless MALLOC_CHECK_ is set) changes
 * that start-up order, and the server runs on the faked clock.
 */
export function fakeRedisTimeEnv(offsetSeconds: number): Record<string, string> {
  const env = fakeTimeEnv(offsetSeconds);
  const shim = MALLOC_DEBUG.find((p) => existsSync(p));
  if (!shim) throw new Error('libc_malloc_debug.so.0 not found (glibc 2.34 or later): redis-server cannot run faked');
  return { ...env, LD_PRELOAD: `${shim}:${env['LD_PRELOAD']}` };
}
