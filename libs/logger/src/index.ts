export * from './create-logger';
export * from './nest-logger';
export * from './logger.module';
