import { randomFillSync } from 'node:crypto';

/**
 * A source of random numbers in [0, 1): the one shape randomness takes in Drover. Core's pure
 * functions take it as a parameter; a process draws from one instance, injected like its clock.
 */
export type Random = () => number;

/**
 * A source of secure random numbers in [0, 1) for run ids (the default {@link Random}), drawn from a pool the OS fills 1024 at
 * a time: an ad-hoc id takes 16 draws, and one `randomInt` call per draw was measurable on the
 * enqueue path.
 */
export function secureRandomSource(): Random {
  const pool = new Uint32Array(1024);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 2 ** 32;
  };
}
