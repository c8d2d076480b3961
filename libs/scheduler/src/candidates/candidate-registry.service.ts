import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { parseCandidates, type Candidate } from '@drover/core';
import { discoverNamedMethods, DuplicateNameError, withDeadline } from '../discovery/named-methods';
import { LaunchTimeoutError } from '../errors/launch-timeout.error';
import {
  CANDIDATE_PROVIDER_METADATA,
  type CandidateContext,
  type CandidateProviderFn,
} from './candidate-provider.decorator';

/** The named candidate providers of this process, discovered from `@CandidateProvider` methods. */
@Injectable()
export class CandidateRegistry implements OnModuleInit {
  private readonly providers = new Map<string, { fn: CandidateProviderFn; owner: string }>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const m of discoverNamedMethods(
      { discovery: this.discovery, scanner: this.scanner, reflector: this.reflector },
      CANDIDATE_PROVIDER_METADATA,
    )) {
      this.register(m.name, (ctx) => m.call(ctx) as ReturnType<CandidateProviderFn>, m.owner);
    }
  }

  register(name: string, fn: CandidateProviderFn, owner = 'register()'): void {
    const prev = this.providers.get(name);
    if (prev) throw new DuplicateNameError('candidate provider', name, prev.owner, owner);
    this.providers.set(name, { fn, owner });
  }

  names(): string[] {
    return [...this.providers.keys()].sort();
  }

  /**
   * Asks a provider what may be owed, with a deadline (its signal is aborted after `timeoutMs`).
   * An unknown name, a timeout, a throw or an answer that is not a list of candidates is a launch
   * failure (the message says which).
   */
  async candidates(name: string, ctx: Omit<CandidateContext, 'signal'>, timeoutMs: number): Promise<Candidate[]> {
    const entry = this.providers.get(name);
    if (!entry) throw new Error(`no candidate provider named "${name}" is registered in this scheduler`);
    const answer = await withDeadline(
      (signal) => entry.fn({ ...ctx, signal }),
      timeoutMs,
      () => new LaunchTimeoutError('candidate provider', name, timeoutMs),
    );
    const parsed = parseCandidates(answer);
    if (!parsed.ok) throw new Error(`candidate provider "${name}" answered ${parsed.error}`);
    return parsed.candidates;
  }
}
