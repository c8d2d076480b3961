import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ConditionTimeoutError } from '../errors/condition-timeout.error';
import { CONDITION_METADATA, type ConditionCheck, type ConditionContext } from './condition.decorator';

/** Thrown at boot when two providers claim the same condition name. */
export class DuplicateConditionError extends Error {
  constructor(name: string, a: string, b: string) {
    super(`condition "${name}" is registered twice (${a} and ${b}); names must be unique`);
    this.name = 'DuplicateConditionError';
  }
}

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
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const proto = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(proto)) {
        const fn = instance[method];
        if (typeof fn !== 'function') continue;
        const name = this.reflector.get<string | undefined>(CONDITION_METADATA, fn as () => unknown);
        if (name) this.register(name, (ctx) => (fn as ConditionCheck).call(instance, ctx), `${wrapper.name}.${method}`);
      }
    }
  }

  register(name: string, fn: ConditionCheck, owner = 'register()'): void {
    const prev = this.checks.get(name);
    if (prev) throw new DuplicateConditionError(name, prev.owner, owner);
    this.checks.set(name, { fn, owner });
  }

  names(): string[] {
    return [...this.checks.keys()].sort();
  }

  /**
   * Runs a check with a deadline: after `timeoutMs` its signal is aborted and the call fails with
   * {@link ConditionTimeoutError}, whether or not the check honours the signal. An unknown name is
   * a launch failure too (the routine names a check nobody registered).
   */
  async evaluate(name: string, ctx: Omit<ConditionContext, 'signal'>, timeoutMs: number): Promise<boolean> {
    const entry = this.checks.get(name);
    if (!entry) throw new Error(`no condition check named "${name}" is registered in this scheduler`);
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new ConditionTimeoutError(name, timeoutMs);
        abort.abort(err);
        reject(err);
      }, timeoutMs);
    });
    try {
      // A check that throws synchronously is a failure like any other.
      const verdict = await Promise.race([
        Promise.resolve().then(() => entry.fn({ ...ctx, signal: abort.signal })),
        deadline,
      ]);
      if (typeof verdict !== 'boolean')
        throw new Error(`condition "${name}" returned ${typeof verdict}, not a boolean`);
      return verdict;
    } finally {
      clearTimeout(timer);
    }
  }
}
