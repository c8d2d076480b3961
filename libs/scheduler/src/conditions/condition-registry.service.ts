import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { discoverNamedMethods, DuplicateNameError, withDeadline } from '../discovery/named-methods';
import { LaunchTimeoutError } from '../errors/launch-timeout.error';
import { CONDITION_METADATA, type ConditionCheck, type ConditionContext } from './condition.decorator';

/** The named condition checks of this process, discovered from `@Condition` methods. */
@Injectable()
export class ConditionRegistry implements OnModuleInit {
  private readonly checks = new Map<string, { fn: ConditionCheck; owner: string }>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const m of discoverNamedMethods(
      { discovery: this.discovery, scanner: this.scanner, reflector: this.reflector },
      CONDITION_METADATA,
    )) {
      this.register(m.name, (ctx) => m.call(ctx) as ReturnType<ConditionCheck>, m.owner);
    }
  }

  register(name: string, fn: ConditionCheck, owner = 'register()'): void {
    const prev = this.checks.get(name);
    if (prev) throw new DuplicateNameError('condition', name, prev.owner, owner);
    this.checks.set(name, { fn, owner });
  }

  names(): string[] {
    return [...this.checks.keys()].sort();
  }

  /**
   * Runs a check with a deadline: after `timeoutMs` its signal is aborted and the call fails with
   * {@link LaunchTimeoutError}, whether or not the check honours the signal. An unknown name is
   * a launch failure too (the routine names a check nobody registered).
   */
  async evaluate(name: string, ctx: Omit<ConditionContext, 'signal'>, timeoutMs: number): Promise<boolean> {
    const entry = this.checks.get(name);
    if (!entry) throw new Error(`no condition check named "${name}" is registered in this scheduler`);
    const verdict = await withDeadline(
      (signal) => entry.fn({ ...ctx, signal }),
      timeoutMs,
      () => new LaunchTimeoutError('condition', name, timeoutMs),
    );
    if (typeof verdict !== 'boolean') throw new Error(`condition "${name}" returned ${typeof verdict}, not a boolean`);
    return verdict;
  }
}
