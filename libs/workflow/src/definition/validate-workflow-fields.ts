import { OVERRIDE_RECIPIENTS_TYPES, TriggerType } from './definition-enums';
import { readDuration, readJq } from './expression-fields';
import { FieldReader, isJsonObject } from './field-reader';
import { DefinitionValidationContext } from './validation-context';
import { RateLimit, SingleObjectFieldsExpr, WorkflowDefinition } from './workflow-definition';

/** The workflow-level fields around the tree: category, ratelimit, trigger events, overrides. */

export function readCategory(fields: FieldReader, context: DefinitionValidationContext): string | undefined {
  const category = fields.string('category', { required: true });
  if (category === undefined || context.categoryExists(category)) return category;
  fields.report('category', `no notification category with slug "${category}"`);
  return undefined;
}

/** `{count, sliding_window}`: count at least 1, sliding_window a positive fixed duration. */
export function readRateLimit(owner: FieldReader): RateLimit | undefined {
  const fields = owner.object('ratelimit');
  if (fields === undefined) return undefined;
  const count = fields.integer('count', { min: 1, required: true });
  const sliding_window = readDuration(fields, 'sliding_window', { required: true, positive: true });
  return count === undefined || sliding_window === undefined ? undefined : { count, sliding_window };
}

/** Event names, none blank; at least one when the workflow is triggered by events. */
export function readTriggerEvents(fields: FieldReader, trigger_type: TriggerType | undefined): readonly string[] | undefined {
  const events = fields.list('trigger_events', (item, path) => readEventName(item, path, fields));
  if (trigger_type === 'event' && fields.isEmptyList('trigger_events')) {
    fields.report('trigger_events', 'must name at least one event when trigger_type is event');
  }
  return events;
}

function readEventName(item: unknown, path: string, owner: FieldReader): string | undefined {
  if (typeof item === 'string' && item.trim() !== '') return item;
  owner.errors.add(path, typeof item === 'string' ? 'must not be empty' : 'must be a string');
  return undefined;
}

type Overrides = Pick<
  WorkflowDefinition,
  | 'override_recipients_type'
  | 'override_recipients_user_expr'
  | 'override_recipients_single_object_fields_expr'
  | 'override_actor_user_expr'
  | 'override_tenant_expr'
>;

/**
 * The override_* fields, all jq. The expression that override_recipients_type names
 * is required. override_recipients_single_object_fields_expr is a jq string
 * (interface 2.2) or, as the reference writes it, an object of jq expressions
 * `{id, object_type, "$object_subscriptions_query.depth"}` with depth "0" to "2".
 */
export function readOverrides(fields: FieldReader, context: DefinitionValidationContext): Overrides {
  const override_recipients_type = fields.oneOf('override_recipients_type', OVERRIDE_RECIPIENTS_TYPES);
  return {
    override_recipients_type,
    override_recipients_user_expr: readJq(fields, 'override_recipients_user_expr', context, {
      required: override_recipients_type === 'user',
    }),
    override_recipients_single_object_fields_expr: readSingleObjectFields(
      fields,
      context,
      override_recipients_type === 'single_object_fields',
    ),
    override_actor_user_expr: readJq(fields, 'override_actor_user_expr', context),
    override_tenant_expr: readJq(fields, 'override_tenant_expr', context),
  };
}

const NAME = 'override_recipients_single_object_fields_expr';
const DEPTH = '$object_subscriptions_query.depth';

function readSingleObjectFields(
  fields: FieldReader,
  context: DefinitionValidationContext,
  required: boolean,
): string | SingleObjectFieldsExpr | undefined {
  const written = fields.raw(NAME);
  if (!isJsonObject(written)) return readJq(fields, NAME, context, { required });
  const object = new FieldReader(written, fields.pathOf(NAME), fields.errors);
  const id = readJq(object, 'id', context, { required: true });
  const object_type = readJq(object, 'object_type', context, { required: true });
  const depth = object.oneOf(DEPTH, ['0', '1', '2']);
  return id === undefined || object_type === undefined ? undefined : { id, object_type, [DEPTH]: depth };
}
