import { API_ROLES, type ApiRole } from '@drover/config';
import type { Session } from '@drover/store';

/** Who made a request: the token's name and role (`dev` in development mode). */
export interface Principal {
  name: string;
  role: ApiRole;
}

export const roleRank = (role: ApiRole): number => API_ROLES.indexOf(role);

/** True when `role` may do what `needed` may (viewer < operator < admin). */
export const roleAllows = (role: ApiRole, needed: ApiRole): boolean => roleRank(role) >= roleRank(needed);

/** The principal the guard attached to a request, and the console session it came from, if any. */
export interface AuthenticatedRequest {
  principal?: Principal;
  consoleSession?: Session;
  /** The id (cookie value) of that session: logging out ends its event streams. */
  consoleSessionId?: string;
}
