import { z } from 'zod';

/**
 * Named answer schemas: each becomes `components.schemas.<id>` in the OpenAPI document (and a
 * named type in the generated client). Register with {@link named}.
 */
export const apiSchemas = z.registry<{ id: string; description?: string }>();

export function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  apiSchemas.add(schema, { id, ...(description && { description }) });
  return schema;
}
