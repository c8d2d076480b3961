export * from './config-error';
export * from './env.schema';
export * from './config-file';
export * from './app-config';
export * from './config.module';
