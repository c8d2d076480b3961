/**
 * What was decided for one slot, stored in the slot's claim so that whoever finds a pending claim
 * can finish the decision if its maker died between claiming and writing the outcome. `at` is
 * when it was decided (epoch ms).
 */
export type SlotDecision =
  /**
   * `v`: for a run armed ahead of its slot, the routine version it was armed for. `keys`: for a
   * selector routine, the candidate keys chosen (one run each). `behind`: for a `buffer-one`
   * routine, the active runs the slot's run waits for (it is made held, and started when they end).
   */
  | {
      kind: 'fire';
      source: 'schedule' | 'catch-up';
      cancel: string[];
      at: number;
      v?: number;
      keys?: string[];
      behind?: string[];
    }
  | { kind: 'skip'; source: 'schedule' | 'catch-up'; reason: string; failed?: boolean; at: number };

export function encodeDecision(d: SlotDecision): string {
  return JSON.stringify(d);
}

/** The decision in a claim's JSON part; undefined when it is not one (never throws). */
export function decodeDecision(raw: string | null | undefined): SlotDecision | undefined {
  if (!raw) return undefined;
  try {
    const d = JSON.parse(raw) as SlotDecision;
    return d && (d.kind === 'fire' || d.kind === 'skip') ? d : undefined;
  } catch {
    return undefined;
  }
}
