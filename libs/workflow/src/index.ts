export * from './decider';
export * from './definition';
