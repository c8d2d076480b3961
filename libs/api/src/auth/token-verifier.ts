import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiToken } from '@drover/config';
import type { Principal } from './principal';

/**
 * Checks bearer tokens against the SHA-256 hashes of the tokens file. Every configured hash is
 * compared in constant time, and all of them are, so neither the answer's timing nor its path
 * tells how much of a guess was right.
 */
export class TokenVerifier {
  private readonly hashes: { token: ApiToken; digest: Buffer }[];

  constructor(tokens: ApiToken[]) {
    this.hashes = tokens.map((token) => ({ token, digest: Buffer.from(token.sha256, 'hex') }));
  }

  verify(presented: string): Principal | undefined {
    const found = this.find(presented);
    return found && { name: found.name, role: found.role };
  }

  /** The tokens-file entry of a presented token (its name, role and hash), or undefined. */
  find(presented: string): ApiToken | undefined {
    const digest = createHash('sha256').update(presented, 'utf8').digest();
    let found: ApiToken | undefined;
    for (const h of this.hashes) {
      if (timingSafeEqual(h.digest, digest) && !found) found = h.token;
    }
    return found;
  }

  /** The entry named `name` (what a console session was opened with), or undefined. */
  named(name: string): ApiToken | undefined {
    return this.hashes.find((h) => h.token.name === name)?.token;
  }
}
