export * from './api-error';
export * from './calls';
export * from './client';
export type { FetchAnswer, FetchInit, FetchLike } from './fetch-like';
export type { components, operations, paths } from './schema';
export * from './event-stream';
export * from './sse-parser';
