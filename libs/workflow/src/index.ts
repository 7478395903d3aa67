export * from './decider';
export * from './definition';
export * from './run';
export * from './schedule';
