import { secureRandomSource, type Random } from '@drover/core';

/**
 * The process's one source of randomness (core's {@link Random}: numbers in [0, 1)), injected like
 * the Clock: `@Inject(RANDOM) random: Random`. Nothing else draws (`Math.random` is refused by the
 * lint), so a test can hand a service a fixed sequence and ids and jitter come out the same.
 */
export const RANDOM = Symbol('drover.random');

/** Secure by default: run ids drawn from it must not be guessable. */
export const randomProvider = { provide: RANDOM, useFactory: (): Random => secureRandomSource() };
