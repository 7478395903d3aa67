import { ObjectRecipient, Recipient, UserRecipient } from '@herald/contracts';
import { RateLimit, SingleObjectFieldsExpr, WorkflowDefinition, parseDuration } from '../definition';
import { assertNever } from '@herald/decider';
import { asNumber, isRecord } from './comparison';
import { Result, fail, jqFirst, jqOutputs, ok, quote } from './evaluate';
import { RunExpressions } from './ports';
import { userRecipient } from './run-inputs';
import { RunScope } from './run-scope';

/** At most this many recipients from one recipient override (a bound on client input, as the trigger's 100). */
export const MAX_OVERRIDE_RECIPIENTS = 1000;

/**
 * The workflow's per-user throttle: a run is admitted when fewer than `count` runs of
 * this workflow were admitted for the recipient in the sliding window that ends now.
 * Times that do not parse, or lie after now, do not count.
 */
export function rateLimitAllows(previousStartsIso: readonly string[], now: Date, limit: RateLimit): boolean {
  const windowMs = parseDuration(limit.sliding_window);
  if (windowMs === undefined) return true; // the validator rejects such a window; a run never pays for it
  const end = now.getTime();
  const recent = previousStartsIso.filter((iso) => {
    const at = Date.parse(iso);
    return Number.isFinite(at) && at > end - windowMs && at <= end;
  });
  return recent.length < limit.count;
}

/** `override_actor_user_expr`: a distinct_id, or an object with one (its other fields become `$actor` properties). */
export function overriddenActor(filter: string, scope: RunScope, expressions: RunExpressions): Result<UserRecipient> {
  const value = jqFirst(expressions, filter, scope);
  if (!value.ok) return fail(`override_actor_user_expr: ${value.error}`);
  const actor = asUser(value.value);
  return actor === undefined ? fail(`override_actor_user_expr gave ${quote(value.value)}, not a distinct_id or an object with one`) : ok(actor);
}

/** `override_tenant_expr`: a non-empty tenant id. */
export function overriddenTenant(filter: string, scope: RunScope, expressions: RunExpressions): Result<string> {
  const value = jqFirst(expressions, filter, scope);
  if (!value.ok) return fail(`override_tenant_expr: ${value.error}`);
  return typeof value.value === 'string' && value.value !== '' ? ok(value.value) : fail(`override_tenant_expr gave ${quote(value.value)}, not a tenant id`);
}

export interface RecipientOverride {
  readonly recipients: readonly Recipient[];
  readonly object_subscriptions_depth?: number;
}

/** The recipients of `override_recipients_type`, or undefined when the workflow does not override them. */
export function overriddenRecipients(definition: WorkflowDefinition, scope: RunScope, expressions: RunExpressions): Result<RecipientOverride> | undefined {
  switch (definition.override_recipients_type) {
    case 'user':
      return definition.override_recipients_user_expr === undefined ? undefined : userRecipients(definition.override_recipients_user_expr, scope, expressions);
    case 'single_object_fields': {
      const fields = definition.override_recipients_single_object_fields_expr;
      if (fields === undefined) return undefined;
      return typeof fields === 'string' ? objectFromFilter(fields, scope, expressions) : objectFromFields(fields, scope, expressions);
    }
    case undefined:
      return undefined;
    default:
      return assertNever(definition.override_recipients_type);
  }
}

/** Every output, arrays flattened: distinct_ids or objects with one. */
function userRecipients(filter: string, scope: RunScope, expressions: RunExpressions): Result<RecipientOverride> {
  const outputs = jqOutputs(expressions, filter, scope);
  if (!outputs.ok) return fail(`override_recipients_user_expr: ${outputs.error}`);
  const recipients: UserRecipient[] = [];
  for (const value of outputs.value.flat()) {
    const user = asUser(value);
    if (user === undefined) return fail(`override_recipients_user_expr gave ${quote(value)}, not a distinct_id or an object with one`);
    recipients.push(user);
  }
  return recipients.length > MAX_OVERRIDE_RECIPIENTS
    ? fail(`override_recipients_user_expr gave ${recipients.length} recipients, more than ${MAX_OVERRIDE_RECIPIENTS}`)
    : ok({ recipients });
}

/** The interface's form: one jq filter yielding `{id, object_type}`. */
function objectFromFilter(filter: string, scope: RunScope, expressions: RunExpressions): Result<RecipientOverride> {
  const value = jqFirst(expressions, filter, scope);
  if (!value.ok) return fail(`override_recipients_single_object_fields_expr: ${value.error}`);
  const object = isRecord(value.value) ? asObject(value.value.id, value.value.object_type) : undefined;
  return object === undefined
    ? fail(`override_recipients_single_object_fields_expr gave ${quote(value.value)}, not an object with id and object_type`)
    : ok({ recipients: [object] });
}

/** The reference's form: one jq filter per field. */
function objectFromFields(fields: SingleObjectFieldsExpr, scope: RunScope, expressions: RunExpressions): Result<RecipientOverride> {
  const field = 'override_recipients_single_object_fields_expr';
  const id = jqFirst(expressions, fields.id, scope);
  if (!id.ok) return fail(`${field}.id: ${id.error}`);
  const objectType = jqFirst(expressions, fields.object_type, scope);
  if (!objectType.ok) return fail(`${field}.object_type: ${objectType.error}`);
  const object = asObject(id.value, objectType.value);
  if (object === undefined) return fail(`${field} gave id ${quote(id.value)} and object_type ${quote(objectType.value)}, not two non-empty strings`);
  const depthFilter = fields['$object_subscriptions_query.depth'];
  if (depthFilter === undefined) return ok({ recipients: [object] });
  const depth = jqFirst(expressions, depthFilter, scope);
  if (!depth.ok) return fail(`${field}.$object_subscriptions_query.depth: ${depth.error}`);
  const levels = asNumber(depth.value);
  if (levels === undefined || !Number.isInteger(levels) || levels < 0 || levels > 2) {
    return fail(`${field}.$object_subscriptions_query.depth gave ${quote(depth.value)}, not 0, 1 or 2`);
  }
  return ok({ recipients: [object], object_subscriptions_depth: levels });
}

function asUser(value: unknown): UserRecipient | undefined {
  if (typeof value === 'string') return value === '' ? undefined : userRecipient(value);
  if (!isRecord(value) || typeof value.distinct_id !== 'string' || value.distinct_id === '') return undefined;
  const { distinct_id, ...properties } = value;
  return userRecipient(distinct_id, properties);
}

function asObject(id: unknown, objectType: unknown): ObjectRecipient | undefined {
  const text = typeof id === 'number' ? String(id) : id;
  if (typeof text !== 'string' || text === '' || typeof objectType !== 'string' || objectType === '') return undefined;
  return { kind: 'object', object_type: objectType, id: text, inline: false, channels: {}, properties: {} };
}
