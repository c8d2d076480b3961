import { SetMetadata } from '@nestjs/common';

export const CONDITION_METADATA = 'drover:condition';

/** What a condition check learns about the fire it gates. Times are epoch ms. */
export interface ConditionContext {
  routine: string;
  slot: number;
  payload: unknown;
  signal: AbortSignal;
}

/** Return `true` to enqueue, `false` to skip (healthy); throw to count a launch failure. */
export type ConditionCheck = (ctx: ConditionContext) => Promise<boolean> | boolean;

/**
 * Marks a provider method as the named condition check routines refer to (`condition: name`).
 * Found at boot through Nest discovery, like `@JobHandler`.
 */
export const Condition = (name: string): MethodDecorator => SetMetadata(CONDITION_METADATA, name);
