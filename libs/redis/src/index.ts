export * from './connection-options';
export * from './keys';
export * from './redis-connections';
export * from './memory-policy';
export * from './redis.module';
export * from './scripts';
export * from './errors/stale-leader.error';
