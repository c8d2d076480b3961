export * from './api-error';
export * from './client';
export type { components, operations, paths } from './schema';
export * from './event-stream';
export * from './sse-parser';
