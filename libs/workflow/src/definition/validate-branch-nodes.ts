import { assertNever } from '@herald/decider';
import { DELAY_TYPES, WAIT_UNTIL_CONDITION_TYPES, WaitUntilConditionType } from './definition-enums';
import { readDuration, readJq } from './expression-fields';
import { FieldReader, JsonObject, isJsonObject } from './field-reader';
import { readNodeBase } from './node-base';
import { BRANCH_CONDITION_RULES, EVENT_CONDITION_RULES, readComparison, readExpressionCondition } from './validate-conditions';
import { readRelativeTo } from './validate-relative-to';
import { DefinitionValidationContext } from './validation-context';
import {
  BranchNode,
  BranchWaitUntilNode,
  ConditionalBranch,
  DelayProperties,
  WaitUntilBranch,
  WaitUntilCondition,
  WorkflowNode,
} from './workflow-definition';

/** Reads the node list `owner[name]` one level deeper (given by the node dispatcher, to avoid an import cycle). */
export type NodeListReader = (owner: FieldReader, name: string) => readonly WorkflowNode[] | undefined;

export const MAX_EVENT_NAME_LENGTH = 255;

/**
 * branch: 2 to 10 branches, exactly one of them the default; every branch holds at
 * least one node, and a branch that is not the default at least one expression_v1
 * condition (without one it would always match and shadow the branches after it).
 */
export function validateBranchNode(fields: FieldReader, readNodes: NodeListReader): BranchNode | undefined {
  const base = readNodeBase(fields, 'branch');
  const branches = fields.list('branches', (item, path) => readConditionalBranch(item, path, fields, readNodes), {
    required: true,
    count: { min: 2, max: 10, message: 'must hold 2 to 10 branches' },
  });
  const defaults = rawBranches(fields).filter((branch) => branch.is_default === true).length;
  if (branches !== undefined && defaults !== 1) {
    fields.report('branches', `exactly one branch must be the default (is_default true), found ${defaults}`);
  }
  return base && branches ? { ...base, branches } : undefined;
}

/**
 * branch_waituntil: exactly 2 branches, each with exactly one condition and at least
 * one node; exactly one branch waits on the `delay` condition (the maximum wait), and
 * that branch, and only that one, is the default.
 */
export function validateWaitUntilNode(
  fields: FieldReader,
  context: DefinitionValidationContext,
  readNodes: NodeListReader,
): BranchWaitUntilNode | undefined {
  const base = readNodeBase(fields, 'branch_waituntil');
  const branches = fields.list('branches', (item, path) => readWaitUntilBranch(item, path, fields, context, readNodes), {
    required: true,
    count: { min: 2, max: 2, message: 'must hold exactly 2 branches' },
  });
  const types = rawBranches(fields).map(declaredConditionType);
  if (types.length === 2 && types.every((type) => type !== undefined)) {
    const delays = types.filter((type) => type === 'delay').length;
    if (delays !== 1) fields.report('branches', `exactly one branch must wait on a delay condition, found ${delays}`);
  }
  return base && branches ? { ...base, branches } : undefined;
}

function readConditionalBranch(
  item: unknown,
  path: string,
  owner: FieldReader,
  readNodes: NodeListReader,
): ConditionalBranch | undefined {
  const fields = FieldReader.of(item, path, owner.errors);
  if (fields === undefined) return undefined;
  const head = readBranchHead(fields);
  const conditions = fields.list('conditions', (condition, at) =>
    readExpressionCondition(condition, at, fields.errors, BRANCH_CONDITION_RULES),
  );
  if (head.is_default !== true && fields.isEmptyList('conditions')) {
    fields.report('conditions', 'must hold at least one condition for a branch that is not the default');
  }
  const nodes = readNodes(fields, 'nodes');
  return nodes && { ...head, conditions, nodes };
}

function readWaitUntilBranch(
  item: unknown,
  path: string,
  owner: FieldReader,
  context: DefinitionValidationContext,
  readNodes: NodeListReader,
): WaitUntilBranch | undefined {
  const fields = FieldReader.of(item, path, owner.errors);
  if (fields === undefined) return undefined;
  const head = readBranchHead(fields);
  const type = declaredConditionType(fields.source);
  if (type === 'delay' && head.is_default !== true) {
    fields.report('is_default', 'must be true for the branch that waits on the delay condition');
  }
  if (type === 'future_event' && head.is_default === true) {
    fields.report('is_default', 'must be false: only the branch that waits on the delay condition is the default');
  }
  const conditions = fields.list('conditions', (condition, at) => readWaitUntilCondition(condition, at, fields, context), {
    required: true,
    count: { min: 1, max: 1, message: 'must hold exactly one condition' },
  });
  const nodes = readNodes(fields, 'nodes');
  return conditions && nodes && { ...head, conditions, nodes };
}

function readBranchHead(fields: FieldReader): { name?: string; description?: string; is_default?: boolean } {
  return { name: fields.string('name'), description: fields.string('description'), is_default: fields.boolean('is_default') };
}

function readWaitUntilCondition(
  item: unknown,
  path: string,
  owner: FieldReader,
  context: DefinitionValidationContext,
): WaitUntilCondition | undefined {
  const fields = FieldReader.of(item, path, owner.errors);
  if (fields === undefined) return undefined;
  const type = fields.oneOf('type', WAIT_UNTIL_CONDITION_TYPES, true);
  switch (type) {
    case 'future_event': {
      const event_name = fields.string('event_name', { required: true, maxLength: MAX_EVENT_NAME_LENGTH });
      const event_conditions = fields.list('event_conditions', (condition, at) =>
        readComparison(condition, at, fields.errors, EVENT_CONDITION_RULES),
      );
      return event_name === undefined ? undefined : { type, event_name, event_conditions };
    }
    case 'delay': {
      const delay_properties = readDelayProperties(fields, context);
      return delay_properties && { type, delay_properties };
    }
    case undefined:
      return undefined;
    default:
      return assertNever(type);
  }
}

/** delay_type; value (a fixed duration or jq) for fixed and dynamic; relative_to for relative_to. */
function readDelayProperties(owner: FieldReader, context: DefinitionValidationContext): DelayProperties | undefined {
  const fields = owner.object('delay_properties', true);
  if (fields === undefined) return undefined;
  const delay_type = fields.oneOf('delay_type', DELAY_TYPES, true);
  switch (delay_type) {
    case 'fixed': {
      const value = readDuration(fields, 'value', { required: true });
      return value === undefined ? undefined : { delay_type, value };
    }
    case 'dynamic': {
      const value = readJq(fields, 'value', context, { required: true });
      return value === undefined ? undefined : { delay_type, value };
    }
    case 'relative_to': {
      const relative_to = readRelativeTo(fields, 'relative_to', context);
      return relative_to && { delay_type, relative_to };
    }
    case undefined:
      return undefined;
    default:
      return assertNever(delay_type);
  }
}

function rawBranches(fields: FieldReader): readonly JsonObject[] {
  const written = fields.raw('branches');
  return Array.isArray(written) ? written.filter(isJsonObject) : [];
}

/**
 * The type a wait-until branch's single condition declares, even when the rest of the
 * condition is wrong (so one mistake is reported once, not again as a rule about the
 * delay branch); undefined when the branch does not hold exactly one typed condition.
 */
function declaredConditionType(branch: JsonObject): WaitUntilConditionType | undefined {
  const written = branch.conditions;
  if (!Array.isArray(written) || written.length !== 1) return undefined;
  const condition: unknown = written[0];
  return isJsonObject(condition) ? WAIT_UNTIL_CONDITION_TYPES.find((type) => type === condition.type) : undefined;
}
