import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type ApiRole, API_ROLES } from '@drover/config';
import { Clock, DroverKeys, RedisConnections } from '@drover/redis';

/** How long a console session lasts from its login (fixed: using it does not extend it). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * One console login as Redis keeps it: who (the token's name and role) and the token's SHA-256 as
 * the tokens file lists it — never the token itself. Every request re-checks the name and hash
 * against the current tokens, so removing or replacing the token ends its sessions.
 */
export interface Session {
  name: string;
  role: ApiRole;
  tokenSha256: string;
  createdAt: number;
  expiresAt: number;
}

/**
 * Console sessions in Redis under the cluster's prefix, with a TTL, so every api replica accepts a
 * session any of them opened. The key holds the SHA-256 of the session id, not the id: reading
 * Redis does not hand out usable cookies.
 */
@Injectable()
export class SessionStore {
  constructor(
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly clock: Clock,
  ) {}

  private key(id: string): string {
    return this.keys.session(createHash('sha256').update(id).digest('hex'));
  }

  /**
   * Opens a session for `principal`, logged in with the token whose tokens-file hash is
   * `tokenSha256`; answers its id (the cookie's value) and expiry.
   */
  async open(
    principal: { name: string; role: ApiRole },
    tokenSha256: string,
    ttlMs = SESSION_TTL_MS,
  ): Promise<{ id: string; session: Session }> {
    const id = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const session: Session = {
      name: principal.name,
      role: principal.role,
      tokenSha256,
      createdAt: now,
      expiresAt: now + ttlMs,
    };
    await this.connections.command.set(this.key(id), JSON.stringify(session), 'PX', ttlMs);
    return { id, session };
  }

  /** The live session of `id`, or undefined (unknown, expired or malformed). */
  async get(id: string): Promise<Session | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(id)) return undefined;
    const raw = await this.connections.command.get(this.key(id));
    if (!raw) return undefined;
    try {
      const s = JSON.parse(raw) as Session;
      // A session from before sessions named their token's hash cannot be re-checked: it is over.
      if (!API_ROLES.includes(s.role) || typeof s.name !== 'string' || typeof s.tokenSha256 !== 'string') {
        return undefined;
      }
      return s.expiresAt > this.clock.now() ? s : undefined;
    } catch {
      return undefined;
    }
  }

  async close(id: string): Promise<void> {
    if (/^[A-Za-z0-9_-]{20,100}$/.test(id)) await this.connections.command.del(this.key(id));
  }
}
