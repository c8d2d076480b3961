import fc from 'fast-check';
import { deref, type JsonSchema, type OasDocument } from '../openapi';

/** Deeper schemas get their simplest value: the fuzzer is after the server's checks, not big trees. */
const MAX_DEPTH = 4;

const DATE_RANGE = {
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2100-01-01T00:00:00Z'),
  noInvalidDate: true,
};

function num(s: JsonSchema, key: string): number | undefined {
  return typeof s[key] === 'number' ? (s[key] as number) : undefined;
}

function stringValue(s: JsonSchema): fc.Arbitrary<string> {
  switch (s.format) {
    case 'date-time':
      return fc.date(DATE_RANGE).map((d) => d.toISOString());
    case 'date':
      return fc.date(DATE_RANGE).map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress();
    case 'uri':
    case 'url':
      return fc.webUrl();
    case 'uuid':
      return fc.uuid();
  }
  const minLength = num(s, 'minLength') ?? 0;
  const maxLength = Math.max(minLength, Math.min(num(s, 'maxLength') ?? 40, 300));
  if (typeof s.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= minLength && v.length <= maxLength);
    } catch {
      // A pattern fast-check cannot generate from (lookarounds): plain strings, mostly refused.
    }
  }
  return fc.string({ minLength, maxLength });
}

function numberValue(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const exMin = num(s, 'exclusiveMinimum');
  const exMax = num(s, 'exclusiveMaximum');
  const min = num(s, 'minimum') ?? (exMin !== undefined ? exMin + (integer ? 1 : 1e-6) : -1e9);
  const max = num(s, 'maximum') ?? (exMax !== undefined ? exMax - (integer ? 1 : 1e-6) : 1e9);
  if (integer) {
    return fc.integer({
      min: Math.ceil(Math.max(min, Number.MIN_SAFE_INTEGER)),
      max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)),
    });
  }
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

function merged(doc: OasDocument, parts: JsonSchema[]): JsonSchema {
  const out: JsonSchema = {};
  for (const part of parts.map((p) => deref(doc, p))) {
    Object.assign(out, part, {
      properties: { ...(out.properties as object), ...(part.properties as object) },
      required: [...((out.required as string[]) ?? []), ...((part.required as string[]) ?? [])],
    });
  }
  delete out.allOf;
  return out;
}

/**
 * Values that match a JSON schema of the document (2020-12, as zod writes it): what a careful
 * client would send. Formats and patterns are followed so these get past validation and reach
 * the handlers.
 */
export function schemaValue(doc: OasDocument, schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema) return fc.jsonValue({ maxDepth: 2 });
  const s = deref(doc, schema);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.allOf)) return schemaValue(doc, merged(doc, s.allOf as JsonSchema[]), depth);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) {
      return fc.oneof(...(options as JsonSchema[]).map((o) => schemaValue(doc, o, depth + 1)));
    }
  }
  if (Array.isArray(s.type)) {
    return fc.oneof(...(s.type as string[]).map((t) => schemaValue(doc, { ...s, type: t }, depth)));
  }
  switch (s.type) {
    case 'string':
      return stringValue(s);
    case 'integer':
      return numberValue(s, true);
    case 'number':
      return numberValue(s, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (Array.isArray(s.prefixItems)) {
        return fc.tuple(...(s.prefixItems as JsonSchema[]).map((i) => schemaValue(doc, i, depth + 1)));
      }
      const minLength = num(s, 'minItems') ?? 0;
      const maxLength = depth >= MAX_DEPTH ? minLength : Math.max(minLength, Math.min(num(s, 'maxItems') ?? 3, 5));
      return fc.array(schemaValue(doc, s.items as JsonSchema | undefined, depth + 1), { minLength, maxLength });
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = (s.required ?? []) as string[];
      const keys = depth >= MAX_DEPTH ? required : Object.keys(props);
      if (keys.length === 0 && s.additionalProperties && typeof s.additionalProperties === 'object') {
        return fc.dictionary(
          fc.string({ minLength: 1, maxLength: 12 }),
          schemaValue(doc, s.additionalProperties as JsonSchema, depth + 1),
          { maxKeys: depth >= MAX_DEPTH ? 0 : 3 },
        );
      }
      return fc.record(Object.fromEntries(keys.map((k) => [k, schemaValue(doc, props[k], depth + 1)])), {
        requiredKeys: required.filter((k) => keys.includes(k)),
      });
    }
  }
  return fc.jsonValue({ maxDepth: 2 });
}

function nested(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

/** Any JSON, and the shapes that break careless servers: wrong types, huge and odd strings, deep nesting, prototype keys. */
export const randomJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 2,
    arbitrary: fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, '', [], {}, 'null', '[]') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }) },
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 300_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 3_000 }).map(nested) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
      { constructor: { prototype: { polluted: true } } },
      { toString: 'x', valueOf: 1, hasOwnProperty: null },
    ),
  },
);

/** A valid-looking value with one property replaced by random JSON: a wrong type where it matters most. */
export function withWrongField(doc: OasDocument, schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const keys = [...Object.keys((deref(doc, schema ?? {}).properties ?? {}) as object)];
  if (keys.length === 0) return randomJson;
  return fc
    .tuple(schemaValue(doc, schema), fc.constantFrom(...keys), randomJson)
    .map(([value, key, junk]) => (value && typeof value === 'object' ? { ...value, [key]: junk } : junk));
}
