import { assertNever } from '@herald/decider';
import { NODE_TYPES } from './definition-enums';
import { FieldReader } from './field-reader';
import { mergeProperties } from './normalise-node';
import { NodeListReader, validateBranchNode, validateWaitUntilNode } from './validate-branch-nodes';
import { validateFetchNode, validateWebhookNode } from './validate-http-nodes';
import { validateSendNode } from './validate-send-nodes';
import { validateBatchNode, validateDelayNode, validateDigestNode } from './validate-timing-nodes';
import { DefinitionValidationContext } from './validation-context';
import { ValidationErrors } from './validation-errors';
import { WorkflowNode } from './workflow-definition';

/** Branch nodes nest at most this deep (a bound on recursion over client input). */
export const MAX_BRANCH_DEPTH = 16;

/** The node list `owner[name]`: required, at least one node. `depth` counts the branch nodes around it (0 in the tree). */
export function readNodeList(
  owner: FieldReader,
  name: string,
  context: DefinitionValidationContext,
  depth: number,
): readonly WorkflowNode[] | undefined {
  return owner.list(name, (item, path) => readNode(item, path, owner.errors, context, depth), {
    required: true,
    count: { min: 1, message: 'must hold at least one node' },
  });
}

function readNode(
  item: unknown,
  path: string,
  errors: ValidationErrors,
  context: DefinitionValidationContext,
  depth: number,
): WorkflowNode | undefined {
  const written = FieldReader.of(item, path, errors);
  if (written === undefined) return undefined;
  const fields = new FieldReader(mergeProperties(written.source), path, errors);
  const given = fields.raw('node_type', true);
  if (given === undefined) return undefined;
  const node_type = NODE_TYPES.find((candidate) => candidate === given);
  if (node_type === undefined) {
    fields.report('node_type', `unsupported node_type ${JSON.stringify(given)}`);
    return undefined;
  }
  if ((node_type === 'branch' || node_type === 'branch_waituntil') && depth >= MAX_BRANCH_DEPTH) {
    errors.add(path, `branch nodes must not nest more than ${MAX_BRANCH_DEPTH} levels deep`);
    return undefined;
  }
  const readNodes: NodeListReader = (owner, name) => readNodeList(owner, name, context, depth + 1);
  switch (node_type) {
    case 'digest':
      return validateDigestNode(fields, context);
    case 'delay':
      return validateDelayNode(fields, context);
    case 'batch':
      return validateBatchNode(fields, context);
    case 'httpapi_webhook':
      return validateWebhookNode(fields, context);
    case 'httpapi_fetch':
      return validateFetchNode(fields, context);
    case 'branch_waituntil':
      return validateWaitUntilNode(fields, context, readNodes);
    case 'branch':
      return validateBranchNode(fields, readNodes);
    case 'send_email':
    case 'send_sms':
    case 'send_whatsapp':
    case 'send_inbox':
    case 'send_mobile_push':
    case 'send_webpush':
    case 'send_slack':
    case 'send_ms_teams':
    case 'send_multi_channel':
    case 'send_smart_channel_routing':
      return validateSendNode(node_type, fields, context);
    default:
      return assertNever(node_type);
  }
}
