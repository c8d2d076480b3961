/** Just enough of an OpenAPI 3.1 document to walk its operations in tests. */
export type JsonSchema = Record<string, unknown>;

export interface OasParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

export interface OasResponse {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: JsonSchema }>;
}

export interface OasOperation {
  operationId: string;
  'x-drover-role'?: string;
  parameters?: OasParameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, OasResponse>;
}

export interface OasDocument {
  openapi: string;
  paths: Record<string, Record<string, OasOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

export interface FoundOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  op: OasOperation;
}

export function operationsOf(doc: OasDocument): FoundOperation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase() as FoundOperation['method'],
      path,
      op,
    })),
  );
}

/** Follows a local `$ref` (`#/components/schemas/X`) once. */
export function deref(doc: OasDocument, schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = doc.components.schemas[name];
  if (!target) throw new Error(`dangling $ref ${ref}`);
  return deref(doc, target);
}

/** Property names a body schema allows, through $ref and allOf/anyOf/oneOf. */
export function propertyNames(doc: OasDocument, schema: JsonSchema | undefined): Set<string> {
  const out = new Set<string>();
  if (!schema) return out;
  const s = deref(doc, schema);
  for (const name of Object.keys((s.properties as Record<string, unknown> | undefined) ?? {})) out.add(name);
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    for (const part of (s[key] as JsonSchema[] | undefined) ?? []) {
      for (const name of propertyNames(doc, part)) out.add(name);
    }
  }
  return out;
}

export const isMutatingMethod = (method: string): boolean => method.toUpperCase() !== 'GET';
