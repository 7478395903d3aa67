export { WorkflowsController } from './workflows.controller';
export { WorkflowStore } from './workflow-store';
export * from './workflow-validation-ports';
