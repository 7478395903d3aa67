export * from './definition';
export * from './run';
export * from './schedule';
export { broadcastWorkflow } from './broadcast-workflow';
export { dynamicWorkflow } from './dynamic-workflow';
export type { DynamicDelivery, DynamicWorkflowSpec, InlineWorkflow } from './dynamic-workflow';
