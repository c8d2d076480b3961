export * from './free-port';
export * from './wait-for';
export * from './redis-server';
export * from './test-redis';
export * from './app-process';
export * from './prometheus';
export * from './http-oracle';
export * from './fake-time';
