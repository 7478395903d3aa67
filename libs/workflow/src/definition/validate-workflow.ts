import { TRIGGER_TYPES } from './definition-enums';
import { FieldReader, isJsonObject } from './field-reader';
import { TRIGGER_CONDITION_RULES, readExpressionCondition } from './validate-conditions';
import { readNodeList } from './validate-node';
import { readCategory, readOverrides, readRateLimit, readTriggerEvents } from './validate-workflow-fields';
import { DefinitionValidationContext } from './validation-context';
import { ValidationErrors } from './validation-errors';
import { NormalisedWorkflow, WorkflowTree } from './workflow-definition';

/** Interface 2.2 `validation_result`. */
export interface ValidationResult {
  readonly is_valid: boolean;
  /** Every error, each `path: message`, e.g. `tree.nodes[2].duration: must be a duration like 1d2h30m10s`. */
  readonly errors: string[];
}

export interface WorkflowValidation {
  /** Present exactly when the definition is valid. */
  readonly definition?: NormalisedWorkflow;
  readonly validation_result: ValidationResult;
}

/**
 * Validates a workflow definition as a client writes it (interface 2.2 to 2.4, 8) and
 * reports every error at once. Required: name, category (an existing one),
 * trigger_type and a tree of at least one node. Unknown fields are ignored and left
 * out of the normalised definition. Pure: parsers and lookups come through `context`.
 */
export function validateWorkflow(input: unknown, context: DefinitionValidationContext): WorkflowValidation {
  const errors = new ValidationErrors();
  if (!isJsonObject(input)) {
    errors.add('', 'a workflow definition must be a JSON object');
    return invalid(errors);
  }
  const fields = new FieldReader(input, '', errors);
  const name = fields.string('name', { required: true });
  const description = fields.string('description');
  const is_enabled = fields.boolean('is_enabled');
  const category = readCategory(fields, context);
  const tags = fields.strings('tags');
  const ratelimit = readRateLimit(fields);
  const conditions = fields.list('conditions', (item, path) => readExpressionCondition(item, path, errors, TRIGGER_CONDITION_RULES));
  const trigger_type = fields.oneOf('trigger_type', TRIGGER_TYPES, true);
  const trigger_events = readTriggerEvents(fields, trigger_type);
  const overrides = readOverrides(fields, context);
  const tree = readTree(fields, context);
  if (!errors.isEmpty || name === undefined || category === undefined || trigger_type === undefined || tree === undefined) {
    return invalid(errors);
  }
  const definition: NormalisedWorkflow = {
    name,
    description,
    is_enabled,
    category,
    tags,
    ratelimit,
    conditions,
    trigger_type,
    trigger_events,
    ...overrides,
    tree,
  };
  return { definition: withoutUndefinedFields(definition), validation_result: { is_valid: true, errors: [] } };
}

/** The definition as JSON would carry it: optional fields that were not read are left out, not undefined. */
function withoutUndefinedFields(definition: NormalisedWorkflow): NormalisedWorkflow {
  return JSON.parse(JSON.stringify(definition)) as NormalisedWorkflow;
}

function readTree(fields: FieldReader, context: DefinitionValidationContext): WorkflowTree | undefined {
  const tree = fields.object('tree', true);
  const nodes = tree && readNodeList(tree, 'nodes', context, 0);
  return nodes && { nodes };
}

function invalid(errors: ValidationErrors): WorkflowValidation {
  return { validation_result: { is_valid: false, errors: [...errors.all] } };
}
