import { SetMetadata } from '@nestjs/common';
import type { ConditionSpec } from '@drover/core';
import type { ConditionContext } from './condition.decorator';

export const CONDITION_KIND_METADATA = 'drover:condition-kind';

/** What a built-in condition kind learns: the fire it gates and the condition as the routine declares it. */
export interface ConditionKindContext<C extends ConditionSpec = ConditionSpec> extends ConditionContext {
  condition: C;
}

/** Return `true` to enqueue, `false` to skip (healthy); throw to count a launch failure. */
export type ConditionKindCheck = (ctx: ConditionKindContext) => Promise<boolean> | boolean;

/**
 * Marks a provider method as the evaluator of a built-in condition kind (`condition: {kind: …}` in
 * a routine): the scheduler role registers `queue-depth`, the built-ins `http`. Found like `@Condition`.
 */
export const ConditionKind = (kind: ConditionSpec['kind']): MethodDecorator =>
  SetMetadata(CONDITION_KIND_METADATA, kind);
