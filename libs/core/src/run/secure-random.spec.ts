import { secureRandomSource } from './secure-random';

describe('secureRandomSource', () => {
  it('draws numbers in [0, 1) that keep changing across pool refills', () => {
    const random = secureRandomSource();
    const draws = Array.from({ length: 3000 }, random);
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    // Past the first 1024 the pool was refilled: a stuck or unfilled pool repeats values.
    expect(new Set(draws.slice(1024)).size).toBeGreaterThan(1900);
    expect(new Set(draws.slice(0, 1024)).size).toBeGreaterThan(1000);
  });
});
