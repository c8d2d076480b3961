export * from './readiness.registry';
export * from './health.controller';
export * from './node-support';
export * from './platform.module';
export * from './run-app';
export * from './security-headers';
export * from './version';
export * from './random';
