export * from './config-error';
export * from './env.schema';
export * from './env-examples';
export * from './redis-tls';
export * from './config-file';
export * from './app-config';
export * from './config.module';
export * from './api-tokens';
