import type { OnModuleInit } from '@nestjs/common';
import type { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { LaunchTimeoutError } from '../errors/launch-timeout.error';
import { discoverNamedMethods, DuplicateNameError, withDeadline } from './named-methods';

type NamedFn<Ctx> = (ctx: Ctx & { signal: AbortSignal }) => unknown;

/**
 * Named functions a routine refers to (`@Condition`, `@CandidateProvider`): discovered from the
 * methods marked with `metadataKey`, or registered by hand; names are unique per kind, and every
 * call runs under a deadline that aborts its signal.
 */
export abstract class NamedRegistry<Ctx> implements OnModuleInit {
  private readonly entries = new Map<string, { fn: NamedFn<Ctx>; owner: string }>();

  protected constructor(
    private readonly nest: { discovery: DiscoveryService; scanner: MetadataScanner; reflector: Reflector },
    private readonly metadataKey: string,
    /** How errors name this kind. */
    private readonly kind: ConstructorParameters<typeof LaunchTimeoutError>[0],
    /** What one of them is called when a routine names one nobody registered. */
    private readonly noun: string = kind,
  ) {}

  onModuleInit(): void {
    for (const m of discoverNamedMethods(this.nest, this.metadataKey)) this.add(m.name, (ctx) => m.call(ctx), m.owner);
  }

  protected add(name: string, fn: NamedFn<Ctx>, owner: string): void {
    const prev = this.entries.get(name);
    if (prev) throw new DuplicateNameError(this.kind, name, prev.owner, owner);
    this.entries.set(name, { fn, owner });
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /**
   * Calls the function named `name`: after `timeoutMs` its signal is aborted and the call fails
   * with {@link LaunchTimeoutError} (naming it `label`), whether or not it honours the signal. An
   * unknown name fails too (the routine names something nobody registered).
   */
  protected call(name: string, ctx: Ctx, timeoutMs: number, label = name): Promise<unknown> {
    const entry = this.entries.get(name);
    if (!entry) {
      return Promise.reject(new Error(`no ${this.noun} named "${name}" is registered in this scheduler`));
    }
    return withDeadline(
      (signal) => entry.fn({ ...ctx, signal }),
      timeoutMs,
      () => new LaunchTimeoutError(this.kind, label, timeoutMs),
    );
  }
}
