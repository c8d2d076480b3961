import type { z } from 'zod';

/**
 * Longest unknown field name that gets a "did you mean": field names are short, and the edit
 * distance costs the product of the two lengths (a 1 MB key took a second of CPU per request).
 */
export const MAX_SUGGESTED_KEY_LENGTH = 64;

/** How much of an unknown field name a message repeats. */
export const MAX_SHOWN_KEY_LENGTH = 64;

/** Edit distance, for "did you mean" on short field names (bounded work: names are short). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/**
 * The known field a mistyped one most likely meant: same letters in another case, or 1-2 edits
 * away. None for a key longer than {@link MAX_SUGGESTED_KEY_LENGTH} (no field name is that long).
 */
export function closestField(key: string, known: readonly string[]): string | undefined {
  if (key.length > MAX_SUGGESTED_KEY_LENGTH) return undefined;
  const lower = key.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase) return sameCase;
  const limit = key.length <= 4 ? 1 : 2;
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const other = k.toLowerCase();
    if (Math.abs(other.length - lower.length) > limit) continue; // at least that many edits apart
    const d = distance(lower, other);
    if (d <= limit && (!best || d < best.d)) best = { k, d };
  }
  return best?.k;
}

/** A field name as messages show it: whole when short, else its start and its length. */
export function shownKey(key: string): string {
  if (key.length <= MAX_SHOWN_KEY_LENGTH) return key;
  return `${key.slice(0, MAX_SHOWN_KEY_LENGTH)}… (${key.length} characters)`;
}

/** `unknown field "concurency"; did you mean "concurrency"?` (or the valid fields when nothing is close). */
export function unknownFieldMessage(key: string, known: readonly string[] | undefined): string {
  const close = known && closestField(key, known);
  if (close) return `unknown field "${key}"; did you mean "${close}"?`;
  return `unknown field "${shownKey(key)}"${known?.length ? `; valid fields: ${known.join(', ')}` : ''}`;
}

type Def = Record<string, unknown>;
const defOf = (s: unknown) => (s as { _zod?: { def?: Def } } | undefined)?._zod?.def;

/** The option of a discriminated union that `value` selects by its discriminator (`kind: cron`). */
function unionOption(def: Def, value: unknown): unknown {
  const key = def.discriminator;
  if (typeof key !== 'string' || !Array.isArray(def.options) || value === null || typeof value !== 'object') {
    return undefined;
  }
  const tag = (value as Record<string, unknown>)[key];
  return def.options.find((option) => {
    const literal = defOf((defOf(option)?.shape as Def | undefined)?.[key]);
    return Array.isArray(literal?.values) && literal.values.includes(tag);
  });
}

/**
 * The object fields the schema accepts at `path` (through optional, default, nullable, array and
 * pipe). With the input `value` (the whole input the path is in), a discriminated union resolves
 * to the option the input names (`trigger: {kind: cron}` → kind, cron, tz); without it, no answer.
 */
export function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[], value?: unknown): string[] | undefined {
  let s: unknown = schema;
  let v = value;
  const unwrap = () => {
    for (let i = 0; i < 10; i++) {
      const def = defOf(s);
      if (!def) return;
      if (def.innerType) s = def.innerType;
      else if (def.type === 'pipe' && def.in) s = def.in;
      else if (def.type === 'union' && def.discriminator) s = unionOption(def, v);
      else return;
    }
  };
  for (const key of path) {
    unwrap();
    const def = defOf(s);
    if (!def) return undefined;
    if (def.type === 'object') s = (def.shape as Def)[String(key)];
    else if (def.type === 'array') s = def.element;
    else if (def.type === 'record') s = def.valueType;
    else return undefined;
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  }
  unwrap();
  const def = defOf(s);
  return def?.type === 'object' ? Object.keys(def.shape as Def) : undefined;
}
