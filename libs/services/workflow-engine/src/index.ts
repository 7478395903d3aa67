export { WorkflowEngineModule, workflowEngine } from './workflow-engine.module';
