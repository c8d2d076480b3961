/**
 * What was decided for one slot, stored as the slot's claim so that whoever finds the claim can
 * finish the decision if its maker died between claiming and writing the run. Times epoch ms.
 */
export type SlotDecision =
  | { kind: 'fire'; source: 'schedule' | 'catch-up'; cancel: string[]; at: number; armed?: boolean }
  | { kind: 'skip'; source: 'schedule' | 'catch-up'; reason: string; failed?: boolean; at: number };

export function encodeDecision(d: SlotDecision): string {
  return JSON.stringify(d);
}

export function decodeDecision(raw: string | null): SlotDecision | undefined {
  if (!raw) return undefined;
  try {
    const d = JSON.parse(raw) as SlotDecision;
    return d && (d.kind === 'fire' || d.kind === 'skip') ? d : undefined;
  } catch {
    return undefined;
  }
}
