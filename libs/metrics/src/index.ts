export * from './metric-names';
export * from './drover-metrics';
export * from './metrics.module';
