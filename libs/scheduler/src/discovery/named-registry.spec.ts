import type { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { CandidateRegistry } from '../candidates/candidate-registry.service';
import { ConditionRegistry } from '../conditions/condition-registry.service';
import { LaunchTimeoutError } from '../errors/launch-timeout.error';
import { DuplicateNameError } from './named-methods';

// Registering by hand needs no Nest discovery.
const nest = [undefined, undefined, undefined] as unknown as [DiscoveryService, MetadataScanner, Reflector];
const ctx = { routine: 'r', slot: 0, now: 0 } as never;

describe('named registries (conditions, candidate providers)', () => {
  it('refuse a second function under a taken name, naming both owners', () => {
    const conditions = new ConditionRegistry(...nest);
    conditions.register('has-orders', () => true, 'A.check');
    expect(() => conditions.register('has-orders', () => false, 'B.check')).toThrow(
      new DuplicateNameError('condition', 'has-orders', 'A.check', 'B.check'),
    );
    expect(conditions.names()).toEqual(['has-orders']);
  });

  it('fail a call to a name nobody registered, saying what kind it is', async () => {
    await expect(new ConditionRegistry(...nest).evaluate('nobody', ctx, 1_000)).rejects.toThrow(
      'no condition check named "nobody" is registered in this scheduler',
    );
    await expect(new CandidateRegistry(...nest).candidates('nobody', ctx, 1_000)).rejects.toThrow(
      'no candidate provider named "nobody" is registered in this scheduler',
    );
  });

  it('abort a call past its deadline and fail it as a launch timeout', async () => {
    const conditions = new ConditionRegistry(...nest);
    let aborted: unknown;
    conditions.register('hangs', ({ signal }) => {
      signal.addEventListener('abort', () => (aborted = signal.reason));
      return new Promise<boolean>(() => undefined);
    });
    const err = await conditions.evaluate('hangs', ctx, 50).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchTimeoutError);
    expect(aborted).toBe(err);
  });

  it('check what comes back: a boolean verdict, a list of candidates', async () => {
    const conditions = new ConditionRegistry(...nest);
    conditions.register('maybe', () => 'yes' as unknown as boolean);
    await expect(conditions.evaluate('maybe', ctx, 1_000)).rejects.toThrow(
      'condition "maybe" returned string, not a boolean',
    );
    const providers = new CandidateRegistry(...nest);
    providers.register('odd', () => ({ not: 'a list' }) as never);
    await expect(providers.candidates('odd', ctx, 1_000)).rejects.toThrow(/^candidate provider "odd" answered /);
  });
});
