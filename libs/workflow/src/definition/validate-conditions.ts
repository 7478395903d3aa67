import {
  BRANCH_VARIABLE_NAMESPACES,
  COMPARISON_OPS,
  ComparisonOp,
  EXPRESSION_CONDITION_TYPES,
  LOGICAL_OPS,
  LogicalOp,
  TRIGGER_CONDITION_COMPARISON_OPS,
  TRIGGER_CONDITION_LOGICAL_OPS,
  TRIGGER_CONDITION_VARIABLE_NAMESPACES,
  VariableNamespace,
  WAIT_UNTIL_VARIABLE_NAMESPACES,
} from './definition-enums';
import { FieldReader } from './field-reader';
import { ValidationErrors } from './validation-errors';
import { Comparison, ExpressionArg, ExpressionCondition, LogicalExpression } from './workflow-definition';

/** Logical expressions nest at most this deep (a bound on recursion over client input). */
export const MAX_EXPRESSION_DEPTH = 16;

/** What one kind of condition allows. */
export interface ConditionRules {
  readonly logicalOps: readonly LogicalOp[];
  readonly comparisonOps: readonly ComparisonOp[];
  readonly namespaces: readonly VariableNamespace[];
  /** Whether an arg may itself be a logical expression (`{op, args}`). */
  readonly nesting: boolean;
}

/** Branch node conditions (reference BranchNode): AND/OR, nested expressions allowed. */
export const BRANCH_CONDITION_RULES: ConditionRules = {
  logicalOps: LOGICAL_OPS,
  comparisonOps: COMPARISON_OPS,
  namespaces: BRANCH_VARIABLE_NAMESPACES,
  nesting: true,
};

/** Workflow trigger conditions (reference WorkflowCreateUpdate): AND of flat comparisons. */
export const TRIGGER_CONDITION_RULES: ConditionRules = {
  logicalOps: TRIGGER_CONDITION_LOGICAL_OPS,
  comparisonOps: TRIGGER_CONDITION_COMPARISON_OPS,
  namespaces: TRIGGER_CONDITION_VARIABLE_NAMESPACES,
  nesting: false,
};

/** Wait-until event_conditions (interface 2.3). */
export const EVENT_CONDITION_RULES: ConditionRules = {
  logicalOps: [],
  comparisonOps: COMPARISON_OPS,
  namespaces: WAIT_UNTIL_VARIABLE_NAMESPACES,
  nesting: false,
};

/** `{type: "expression_v1", expression_v1: {op, args}}`. */
export function readExpressionCondition(
  item: unknown,
  path: string,
  errors: ValidationErrors,
  rules: ConditionRules,
): ExpressionCondition | undefined {
  const fields = FieldReader.of(item, path, errors);
  if (fields === undefined) return undefined;
  const type = fields.oneOf('type', EXPRESSION_CONDITION_TYPES, true);
  const expression = fields.object('expression_v1', true);
  const expression_v1 = expression && readLogicalExpression(expression, rules, 1);
  return type && expression_v1 ? { type, expression_v1 } : undefined;
}

/** `{variable_ns, variable, op, value}`: variable required, variable_ns absent or empty for the payload. */
export function readComparison(item: unknown, path: string, errors: ValidationErrors, rules: ConditionRules): Comparison | undefined {
  const fields = FieldReader.of(item, path, errors);
  return fields && readComparisonFields(fields, rules);
}

function readLogicalExpression(fields: FieldReader, rules: ConditionRules, depth: number): LogicalExpression | undefined {
  const op = fields.oneOf('op', rules.logicalOps, true);
  const args = fields.list('args', (item, path) => readArg(item, path, fields.errors, rules, depth), {
    required: true,
    count: { min: 1, message: 'must hold at least one condition' },
  });
  return op && args ? { op, args } : undefined;
}

function readArg(item: unknown, path: string, errors: ValidationErrors, rules: ConditionRules, depth: number): ExpressionArg | undefined {
  const fields = FieldReader.of(item, path, errors);
  if (fields === undefined) return undefined;
  if (!fields.has('args')) return readComparisonFields(fields, rules);
  if (!rules.nesting) return report(fields, 'args', 'nested expressions are not allowed here');
  if (depth >= MAX_EXPRESSION_DEPTH) return report(fields, 'args', `expressions must not nest more than ${MAX_EXPRESSION_DEPTH} levels deep`);
  return readLogicalExpression(fields, rules, depth + 1);
}

function readComparisonFields(fields: FieldReader, rules: ConditionRules): Comparison | undefined {
  const variable_ns = fields.oneOf('variable_ns', rules.namespaces);
  const variable = fields.string('variable', { required: true });
  const op = fields.oneOf('op', rules.comparisonOps, true);
  const value = fields.string('value');
  return variable !== undefined && op ? { variable_ns, variable, op, value } : undefined;
}

function report(fields: FieldReader, name: string, message: string): undefined {
  fields.report(name, message);
  return undefined;
}
