/** Locale-independent string order (UTF-16 code units), for deterministic sorting. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
