export * from './worker-role.module';
export * from './scheduler-role.module';
export * from './handlers/noop.handler';
export * from './handlers/sleep.handler';
export * from './handlers/http-request.handler';
export * from './candidates/http-candidates.provider';
export * from './conditions/http.condition';
export * from './http/url-allowlist';
export { droverVersion } from '@drover/platform';
