import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { parseCandidates, type Candidate } from '@drover/core';
import { NamedRegistry } from '../discovery/named-registry';
import {
  CANDIDATE_PROVIDER_METADATA,
  type CandidateContext,
  type CandidateProviderFn,
} from './candidate-provider.decorator';

/** The named candidate providers of this process, discovered from `@CandidateProvider` methods. */
@Injectable()
export class CandidateRegistry extends NamedRegistry<Omit<CandidateContext, 'signal'>> {
  constructor(discovery: DiscoveryService, scanner: MetadataScanner, reflector: Reflector) {
    super({ discovery, scanner, reflector }, CANDIDATE_PROVIDER_METADATA, 'candidate provider');
  }

  register(name: string, fn: CandidateProviderFn, owner = 'register()'): void {
    this.add(name, fn, owner);
  }

  /**
   * Asks a provider what may be owed, under its deadline (see {@link NamedRegistry.call}); an
   * answer that is not a list of candidates is a launch failure (the message says which).
   */
  async candidates(name: string, ctx: Omit<CandidateContext, 'signal'>, timeoutMs: number): Promise<Candidate[]> {
    const parsed = parseCandidates(await this.call(name, ctx, timeoutMs));
    if (!parsed.ok) throw new Error(`candidate provider "${name}" answered ${parsed.error}`);
    return parsed.candidates;
  }
}
