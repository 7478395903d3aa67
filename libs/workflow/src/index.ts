export * from './decider';
export * from './definition';
export * from './run';
export * from './schedule';
export { broadcastWorkflow } from './broadcast-workflow';
