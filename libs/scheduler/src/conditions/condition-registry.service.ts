import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { NamedRegistry } from '../discovery/named-registry';
import { CONDITION_METADATA, type ConditionCheck, type ConditionContext } from './condition.decorator';

/** The named condition checks of this process, discovered from `@Condition` methods. */
@Injectable()
export class ConditionRegistry extends NamedRegistry<Omit<ConditionContext, 'signal'>> {
  constructor(discovery: DiscoveryService, scanner: MetadataScanner, reflector: Reflector) {
    super({ discovery, scanner, reflector }, CONDITION_METADATA, 'condition', 'condition check');
  }

  register(name: string, fn: ConditionCheck, owner = 'register()'): void {
    this.add(name, fn, owner);
  }

  /**
   * Runs a check under its deadline (see {@link NamedRegistry.call}); anything but a boolean
   * verdict is a launch failure.
   */
  async evaluate(name: string, ctx: Omit<ConditionContext, 'signal'>, timeoutMs: number): Promise<boolean> {
    const verdict = await this.call(name, ctx, timeoutMs);
    if (typeof verdict !== 'boolean') throw new Error(`condition "${name}" returned ${typeof verdict}, not a boolean`);
    return verdict;
  }
}
