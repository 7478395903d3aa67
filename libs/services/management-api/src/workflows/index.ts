import { Provider, Type } from '@nestjs/common';
import { EXPRESSION_SYNTAX_PROVIDERS } from './expression-syntax.provider';
import { TemplateRepository } from '../templates/template.repository';
import { DeletedWorkflowEntity, WorkflowEntity, WorkflowRepository, WorkflowVersionEntity } from './workflow.repository';
import { TEMPLATE_CATALOGUE } from './workflow-validation-ports';
import { WorkflowsController } from './workflows.controller';

export const WORKFLOW_CONTROLLERS: Type[] = [WorkflowsController];
export const WORKFLOW_PROVIDERS: Provider[] = [
  WorkflowRepository,
  ...EXPRESSION_SYNTAX_PROVIDERS,
  // The live templates a workflow may send, read by the template repository.
  { provide: TEMPLATE_CATALOGUE, useExisting: TemplateRepository },
];
export const WORKFLOW_ENTITIES = [WorkflowEntity, WorkflowVersionEntity, DeletedWorkflowEntity];
