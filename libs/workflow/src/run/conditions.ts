import { Comparison, ExpressionArg, ExpressionCondition, LogicalExpression, VariableNamespace } from '../definition';
import { assertNever } from '@herald/decider';
import { compare, isRecord } from './comparison';
import { Result, ok, templateValue } from './evaluate';
import { RunExpressions } from './ports';
import { ComparisonTrace } from './run-events';
import { RunScope } from './run-scope';

export interface ConditionOutcome {
  readonly holds: boolean;
  readonly evaluations: readonly ComparisonTrace[];
}

/**
 * A list of `expression_v1` conditions holds when any of them holds (the reference:
 * "executed if any of the conditions in this array evaluate to true"); an empty list
 * holds. AND and OR short-circuit, so the trace shows what decided. The only failure
 * is a condition value written as Jsonnet that does not evaluate.
 */
export function evaluateConditions(conditions: readonly ExpressionCondition[], scope: RunScope, expressions: RunExpressions): Result<ConditionOutcome> {
  const evaluations: ComparisonTrace[] = [];
  for (const condition of conditions) {
    const holds = evaluateLogical(condition.expression_v1, scope, expressions, evaluations);
    if (!holds.ok) return holds;
    if (holds.value) return ok({ holds: true, evaluations });
  }
  return ok({ holds: conditions.length === 0, evaluations });
}

/** A wait-until's event_conditions: every comparison must hold (none: the event alone is enough). */
export function evaluateComparisons(comparisons: readonly Comparison[], scope: RunScope, expressions: RunExpressions): Result<ConditionOutcome> {
  const evaluations: ComparisonTrace[] = [];
  const holds = evaluateLogical({ op: 'AND', args: comparisons }, scope, expressions, evaluations);
  return holds.ok ? ok({ holds: holds.value, evaluations }) : holds;
}

function evaluateLogical(expression: LogicalExpression, scope: RunScope, expressions: RunExpressions, trace: ComparisonTrace[]): Result<boolean> {
  const wanted = expression.op === 'OR';
  for (const arg of expression.args) {
    const result = evaluateArg(arg, scope, expressions, trace);
    if (!result.ok || result.value === wanted) return result;
  }
  return ok(!wanted);
}

function evaluateArg(arg: ExpressionArg, scope: RunScope, expressions: RunExpressions, trace: ComparisonTrace[]): Result<boolean> {
  return 'args' in arg ? evaluateLogical(arg, scope, expressions, trace) : evaluateComparison(arg, scope, expressions, trace);
}

function evaluateComparison(comparison: Comparison, scope: RunScope, expressions: RunExpressions, trace: ComparisonTrace[]): Result<boolean> {
  const { variable, op, value } = comparison;
  const variable_ns = comparison.variable_ns ?? '';
  const left = lookup(namespace(variable_ns, scope), variable);
  const right = value === undefined ? ok(undefined) : templateValue(expressions, value, scope);
  if (!right.ok) return { ok: false, error: `the value of the condition on ${describeVariable(variable_ns, variable)}: ${right.error}` };
  const result = compare(op, left, right.value);
  trace.push({ variable_ns, variable, op, ...defined('left', left), ...defined('right', right.value), result });
  return ok(result);
}

/** `$brand` is the reference's name for `$tenant`; `$future_event` exists only while a wait-until weighs an event. */
function namespace(variable_ns: VariableNamespace | '', scope: RunScope): unknown {
  switch (variable_ns) {
    case '':
      return scope.data;
    case '$recipient':
      return scope.recipient;
    case '$actor':
      return scope.actor;
    case '$tenant':
    case '$brand':
      return scope.tenant;
    case '$workflow':
      return scope.workflow;
    case '$future_event':
      return scope.future_event;
    default:
      return assertNever(variable_ns);
  }
}

/** The key as written first (`a.b` may be a key of its own), else a dotted path through objects and arrays. */
export function lookup(root: unknown, variable: string): unknown {
  if (isRecord(root) && Object.prototype.hasOwnProperty.call(root, variable)) return root[variable];
  let value: unknown = root;
  for (const part of variable.split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(part)) value = value[Number(part)];
    else if (isRecord(value) && Object.prototype.hasOwnProperty.call(value, part)) value = value[part];
    else return undefined;
  }
  return value;
}

function describeVariable(variable_ns: string, variable: string): string {
  return variable_ns === '' ? `"${variable}"` : `"${variable_ns}.${variable}"`;
}

function defined(key: string, value: unknown): Record<string, unknown> {
  return value === undefined ? {} : { [key]: value };
}
