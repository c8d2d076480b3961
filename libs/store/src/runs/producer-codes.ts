import type { DroverKeys, RedisClient } from '@drover/redis';

/**
 * Short codes for producer names. A run records who created it (`createdBy`: a client's name, an
 * api token's, `scheduler`); written in full on every queued run it was a large share of the
 * run's bytes, so a run stores its producer's code (`by`) and readers turn it back into the name.
 *
 * The codes live in one hash (`producers`): `n:<name>` → code and `c:<code>` → name, and `next`,
 * the last code drawn (base36 of a counter, so codes are 1–3 characters). A name gets its code once
 * in the cluster; a process asks for it the first time it writes a run for that name and keeps it.
 * Until the answer is in, runs carry the name in full, so nothing waits for the registration.
 * A reader keeps the names it has seen; a code it cannot resolve reads as the code itself.
 */
export class ProducerCodes {
  private readonly codes = new Map<string, string>();
  private readonly names = new Map<string, string>();
  private readonly registering = new Set<string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Pick<DroverKeys, 'producers'>,
  ) {}

  private get key(): string {
    return this.keys.producers();
  }

  /**
   * The code of `name` if this process has it; else undefined (store the name in full), and the
   * code is asked for in the background (once at a time; a failed attempt is retried by a later call).
   */
  codeOf(name: string): string | undefined {
    const code = this.codes.get(name);
    if (code !== undefined || this.registering.has(name)) return code;
    this.registering.add(name);
    this.register(name).then(
      () => this.registering.delete(name),
      () => this.registering.delete(name),
    );
    return undefined;
  }

  /** Registers `name` (an existing code wins) and remembers its code. */
  async register(name: string): Promise<string> {
    let code = await this.redis.hget(this.key, `n:${name}`);
    if (code === null) {
      const drawn = (await this.redis.hincrby(this.key, 'next', 1)).toString(36);
      // The code's name first: a code is never handed out before it can be read back. A process
      // that loses the race for the name leaves its drawn code naming the same name, unused.
      await this.redis.hset(this.key, `c:${drawn}`, name);
      const won = await this.redis.hsetnx(this.key, `n:${name}`, drawn);
      code = won === 1 ? drawn : await this.redis.hget(this.key, `n:${name}`);
    }
    if (code === null) throw new Error(`producer ${JSON.stringify(name)} has no code`);
    this.remember(code, name);
    return code;
  }

  private remember(code: string, name: string): void {
    this.codes.set(name, code);
    this.names.set(code, name);
  }

  /** The name of `code`, if known here (see {@link load}). */
  known(code: string): string | undefined {
    return this.names.get(code);
  }

  /** The name of `code`: the code itself when it names no producer (an unknown code reads as the code). */
  nameOf(code: string): string {
    return this.names.get(code) ?? code;
  }

  /** Reads the names of the codes not known here yet (one HMGET; none when all are known). */
  async load(codes: Iterable<string>): Promise<void> {
    const missing = [...new Set(codes)].filter((c) => !this.names.has(c));
    if (missing.length === 0) return;
    const found = await this.redis.hmget(this.key, ...missing.map((c) => `c:${c}`));
    found.forEach((name, i) => {
      if (name !== null) this.remember(missing[i]!, name);
    });
  }
}
