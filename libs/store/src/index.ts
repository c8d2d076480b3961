export * from './routines/routine-record';
export * from './routines/routine.store';
