import type { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { DroverError } from '@drover/core';

/** Thrown at boot when two providers claim the same name for one kind of method. */
export class DuplicateNameError extends DroverError {
  get code() {
    return 'duplicate-name' as const;
  }

  constructor(kind: string, name: string, a: string, b: string) {
    super(`${kind} "${name}" is registered twice (${a} and ${b}); names must be unique`);
    this.name = 'DuplicateNameError';
  }
}

/**
 * Methods of any provider marked with `metadataKey` (a name), found through Nest discovery the way
 * `@JobHandler`s are: the names of conditions and candidate providers routines refer to.
 */
export function discoverNamedMethods(
  nest: { discovery: DiscoveryService; scanner: MetadataScanner; reflector: Reflector },
  metadataKey: string,
): { name: string; owner: string; call: (...args: unknown[]) => unknown }[] {
  const found: { name: string; owner: string; call: (...args: unknown[]) => unknown }[] = [];
  for (const wrapper of nest.discovery.getProviders()) {
    const instance = wrapper.instance as Record<string, unknown> | undefined;
    if (!instance || typeof instance !== 'object') continue;
    const proto = Object.getPrototypeOf(instance) as object;
    for (const method of nest.scanner.getAllMethodNames(proto)) {
      const fn = instance[method];
      if (typeof fn !== 'function') continue;
      const name = nest.reflector.get<string | undefined>(metadataKey, fn as () => unknown);
      if (name) {
        found.push({
          name,
          owner: `${wrapper.name}.${method}`,
          call: (...args) => (fn as (...a: unknown[]) => unknown).apply(instance, args),
        });
      }
    }
  }
  return found;
}

/**
 * Calls `fn` with an AbortSignal and a deadline: after `timeoutMs` the signal is aborted and the
 * call fails with `onTimeout()`, whether or not `fn` honours the signal. A synchronous throw is a
 * failure like any other.
 */
export async function withDeadline<T>(
  fn: (signal: AbortSignal) => Promise<T> | T,
  timeoutMs: number,
  onTimeout: () => Error,
): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = onTimeout();
      abort.abort(err);
      reject(err);
    }, timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => fn(abort.signal)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
