import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { describeCondition, type ConditionSpec } from '@drover/core';
import { NamedRegistry } from '../discovery/named-registry';
import {
  CONDITION_KIND_METADATA,
  type ConditionKindCheck,
  type ConditionKindContext,
} from './condition-kind.decorator';

/** The evaluators of the built-in condition kinds this process knows, discovered from `@ConditionKind`. */
@Injectable()
export class ConditionKindRegistry extends NamedRegistry<Omit<ConditionKindContext, 'signal'>> {
  constructor(discovery: DiscoveryService, scanner: MetadataScanner, reflector: Reflector) {
    super({ discovery, scanner, reflector }, CONDITION_KIND_METADATA, 'condition', 'condition kind');
  }

  register(kind: ConditionSpec['kind'], fn: ConditionKindCheck, owner = 'register()'): void {
    this.add(kind, fn as (ctx: ConditionKindContext) => unknown, owner);
  }

  /**
   * Evaluates `ctx.condition` with its kind's evaluator under the deadline (see
   * {@link NamedRegistry.call}); anything but a boolean verdict is a launch failure.
   */
  async evaluate(ctx: Omit<ConditionKindContext, 'signal'>, timeoutMs: number): Promise<boolean> {
    const label = describeCondition(ctx.condition);
    const verdict = await this.call(ctx.condition.kind, ctx, timeoutMs, label);
    if (typeof verdict !== 'boolean') throw new Error(`condition "${label}" returned ${typeof verdict}, not a boolean`);
    return verdict;
  }
}
