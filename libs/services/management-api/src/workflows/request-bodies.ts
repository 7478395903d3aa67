import { Static, Type } from '@sinclair/typebox';
import { Nullable } from '@herald/contracts';
import { NODE_TYPES, OVERRIDE_RECIPIENTS_TYPES, TRIGGER_TYPES } from '@herald/workflow';
import { managementSchemas, optionalBody } from '../openapi/management-schemas';
import { PayloadSchemaLinkSchema } from '../schemas/request-bodies';

/**
 * The request bodies of `/v1/{workspace}/workflow/...` (docs/architecture.md, "Contracts"):
 * the handlers' `@ValidBody` validates with them and management-openapi.ts shows them.
 *
 * A workflow body's schema says its shape: the fields and their types, null counting as
 * absent as the workflow validator reads them. What makes a definition valid (the required
 * fields, each node type's fields, the graph's rules, jq and templates that exist) is the
 * workflow library's validator, after the parse: a draft is saved with its
 * `validation_result` even when invalid, as an editor saves work in progress.
 */

const text = (description?: string) => Nullable(Type.String(description === undefined ? {} : { description }));
const expression = (description: string) => text(`A jq expression: ${description}`);

const WorkflowNodeSchema = Type.Object(
  {
    name: text(),
    description: text(),
    node_type: text(`One of ${NODE_TYPES.join(', ')}; it decides the other fields (docs/reference.md lists them, with an example of each)`),
  },
  { description: 'A node of the tree; the workflow validator checks its fields and its branches' },
);

export const WorkflowBodySchema = managementSchemas.named(
  'WorkflowBody',
  Type.Object(
    {
      name: text('Required for a valid workflow'),
      description: text(),
      is_enabled: Type.Optional(Type.Boolean({ 'x-message': 'must be a boolean' })),
      category: text('A live category of the workspace (system, transactional and promotional to start with); required for a valid workflow'),
      tags: Nullable(Type.Array(Type.String())),
      ratelimit: Nullable(Type.Object({}, { description: '{count, sliding_window}: at most count runs per recipient in the window' })),
      conditions: Nullable(Type.Array(Type.Unknown(), { description: 'Conditions a trigger must meet to start a run' })),
      trigger_type: text(`One of ${TRIGGER_TYPES.join(', ')}; required for a valid workflow`),
      trigger_events: Nullable(Type.Array(Type.String(), { description: 'The events that trigger it (trigger_type event)' })),
      override_recipients_type: text(`One of ${OVERRIDE_RECIPIENTS_TYPES.join(', ')}`),
      override_recipients_user_expr: expression('the recipients, when override_recipients_type is user'),
      override_recipients_single_object_fields_expr: Type.Optional(
        Type.Unknown({ description: 'A jq expression, or {id, object_type} of jq expressions, when override_recipients_type is single_object_fields' }),
      ),
      override_actor_user_expr: expression('the actor'),
      override_tenant_expr: expression('the tenant'),
      payload_schema: Nullable(PayloadSchemaLinkSchema),
      tree: Nullable(
        Type.Object(
          { nodes: Nullable(Type.Array(WorkflowNodeSchema, { description: 'Run in order; at least one for a valid workflow' })) },
          { description: 'The nodes of the workflow' },
        ),
      ),
    },
    {
      'x-message': 'the body must be a JSON object',
      description:
        'WorkflowCreateUpdate of the reference. `category` must be a live category of the workspace (system, transactional and promotional to start with); the tree holds the nodes, run in order. Unknown fields are ignored.',
    },
  ),
);
export type WorkflowBody = Static<typeof WorkflowBodySchema>;

export const WorkflowEnableBodySchema = managementSchemas.named(
  'WorkflowEnable',
  Type.Object(
    { is_enabled: Type.Boolean({ 'x-message': 'must be a boolean' }) },
    { 'x-message': 'the body must be a JSON object', 'x-required-message': 'must be a boolean' },
  ),
);
export type WorkflowEnableBody = Static<typeof WorkflowEnableBodySchema>;

export const WORKFLOW_BODIES = {
  workflow: managementSchemas.parser(WorkflowBodySchema),
  // No body at all reads as {}: `is_enabled: must be a boolean`, as before.
  enable: optionalBody(managementSchemas.parser(WorkflowEnableBodySchema)),
} as const;
