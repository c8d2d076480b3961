export * from './api.module';
export * from './http/configure-http';
export * from './http/problem';
export * from './http/route-spec';
export * from './auth/principal';
export * from './openapi/openapi-document';
