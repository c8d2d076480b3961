import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './api';

export const SessionContext = createContext<Session | undefined>(undefined);

const RANK = { viewer: 0, operator: 1, admin: 2 } as const;

/**
 * True when the logged-in role may do what `role` may. The console hides what it may not; the
 * api refuses it anyway (403), so this is for clarity, not protection.
 */
export function useCan(role: keyof typeof RANK): boolean {
  const session = useContext(SessionContext);
  return !!session?.role && RANK[session.role] >= RANK[role];
}
