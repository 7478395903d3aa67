import { Type } from '@sinclair/typebox';
import { FieldError, FormattedString, Nullable, ParseResult, USER_OPERATION_KEYS } from '@herald/contracts';
import { validateEvent } from './event';
import { EventRecord } from './event-records';
import { UserOperationSchema, validateIdentityEvent } from './identity-event';
import { ingestSchemas, isRecord } from './ingest-checks';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './shared-fields';

/**
 * A `POST /v2/event` body as sent: SuprSend's web SDK (identify, a profile edit, a track
 * event) or a backend SDK (any record `/event/` accepts). Checked first for its own
 * fields (`$insert_id`); the record it stands for is then validated by the `/event/`
 * schemas (Event, IdentityEvent, UserOperation).
 */
export const SdkEventSchema = ingestSchemas.named(
  'SdkEvent',
  Type.Object(
    {
      event: Type.Optional(Type.String({ description: '`$identify`, a service worker event, or a track event name' })),
      distinct_id: Type.Optional(Type.String()),
      properties: Type.Optional(Type.Object({}, { description: 'identify: `{$identified_id}`' })),
      tenant_id: Nullable(Type.String()),
      $insert_id: Type.Optional(
        FormattedString('insert_id', { 'x-message': `must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, description: 'The idempotency key unless $idempotency_key is given' }),
      ),
      $idempotency_key: Nullable(Type.String()),
      ...Object.fromEntries(USER_OPERATION_KEYS.map((key) => [key, Type.Optional(Type.Unknown({ description: 'A profile edit (web SDK), as UserOperation takes it' }))])),
      $user_operations: Type.Optional(Type.Array(UserOperationSchema, { description: 'Backend only: an identity event, as `/event/` takes it' })),
    },
    { 'x-message': 'must be a JSON object' },
  ),
);
const sdkEventParser = ingestSchemas.parser(SdkEventSchema);

/** What the web SDK's identify sends as its event name; the user is `properties.$identified_id`. */
const IDENTIFY_EVENT = '$identify';
/** The web SDK's id of a browser, sent beside `$webpush`; the subscription itself identifies the device. */
const WEBPUSH_COMPANIONS = ['$device_id'];

/**
 * The events SuprSend's service worker (`serviceworker.js`) posts about a push
 * notification it showed, and what each reports. A dismissal is accepted and recorded
 * nowhere: Herald's message statuses have no "dismissed".
 */
const SERVICE_WORKER_EVENTS: Readonly<Record<string, ServiceWorkerEvent['status']>> = {
  $notification_delivered: 'delivered',
  $notification_clicked: 'clicked',
  $notification_dismiss: 'dismissed',
};
/** A message id (`<run id>:delivery:<node>:<channel>`) is far shorter. */
const MAX_NOTIFICATION_ID_LENGTH = 512;
const MAX_ACTION_LENGTH = 255;

/** What a service worker reported: `notificationId` is the push payload's `data.notification_id` (the message log's `message_id`). */
export interface ServiceWorkerEvent {
  readonly status: 'delivered' | 'clicked' | 'dismissed';
  readonly notificationId: string;
  /** The notification's button clicked (`label_id`), when not the notification itself. */
  readonly action?: string;
}

/** Whether a body is one of the service worker's events (which carry no user). */
export function isServiceWorkerEvent(body: unknown): boolean {
  return isRecord(body) && typeof body.event === 'string' && Object.hasOwn(SERVICE_WORKER_EVENTS, body.event);
}

/** `{event: "$notification_delivered" | "$notification_clicked" | "$notification_dismiss", $time, properties: {id, label_id?}}`. Pure. */
export function readServiceWorkerEvent(body: unknown): ParseResult<ServiceWorkerEvent> {
  if (!isRecord(body) || !isServiceWorkerEvent(body)) return { ok: false, errors: [{ path: 'event', message: `must be one of ${Object.keys(SERVICE_WORKER_EVENTS).join(', ')}` }] };
  const properties = isRecord(body.properties) ? body.properties : {};
  const errors: FieldError[] = [];
  const id = properties.id;
  if (typeof id !== 'string' || id.trim() === '' || id.length > MAX_NOTIFICATION_ID_LENGTH) errors.push({ path: 'properties.id', message: "must be the notification's id (its push payload's data.notification_id)" });
  const action = properties.label_id;
  if (action !== undefined && action !== null && (typeof action !== 'string' || action.length > MAX_ACTION_LENGTH)) {
    errors.push({ path: 'properties.label_id', message: `must be a string of at most ${MAX_ACTION_LENGTH} characters` });
  }
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: { status: SERVICE_WORKER_EVENTS[body.event as string], notificationId: id as string, ...(typeof action === 'string' && action !== '' ? { action } : {}) },
  };
}

/** A `POST /v2/event` body, read as the `/event/` record it stands for, and the user it is about. */
export interface BrowserSdkEvent {
  readonly record: EventRecord;
  readonly distinctId: string;
}

/**
 * Reads a body of SuprSend's web SDK (`POST /v2/event`, docs/sdk-compatibility.md):
 * - identify: `{event: "$identify", properties: {$identified_id}}` (no top-level
 *   `distinct_id`) is an identity event with no operations, which makes the user;
 * - a profile edit: `{distinct_id, $set | $set_once | $add | $append | $remove | $unset}`
 *   is an identity event with those operations, in the order sent;
 * - anything else is a track event `{distinct_id, event, properties}`.
 * Each is then validated exactly as `/event/` validates it (same limits); errors name the
 * SDK's own paths (`$set.plan`, not `$user_operations[0].$set.plan`). `$insert_id`, the
 * SDK's id of each call, is the idempotency key unless `$idempotency_key` is given, so a
 * retried call is accepted once. Pure.
 */
export function readBrowserSdkEvent(body: unknown): ParseResult<BrowserSdkEvent> {
  if (!isRecord(body)) return { ok: false, errors: sdkEventParser.errors(body) };
  const { errors, shapeErrors, idempotency } = insertIdIdempotency(body);
  const common = { ...(idempotency === undefined ? {} : { $idempotency_key: idempotency }), ...(body.tenant_id === undefined ? {} : { tenant_id: body.tenant_id }) };
  const operationKeys = Object.keys(body).filter((key) => (USER_OPERATION_KEYS as readonly string[]).includes(key));

  if (body.event === IDENTIFY_EVENT) {
    const properties = isRecord(body.properties) ? body.properties : {};
    const identified = properties.$identified_id;
    if (typeof identified !== 'string') errors.push({ path: 'properties.$identified_id', message: 'is required: the id of the user to identify' });
    if (errors.length > 0 || typeof identified !== 'string') return { ok: false, errors };
    const identity = validateIdentityEvent({ distinct_id: identified, $user_operations: [], ...common });
    if (!identity.ok) return { ok: false, errors: identity.errors.map(renamed({ distinct_id: 'properties.$identified_id' })) };
    return { ok: true, value: { record: { kind: 'identity', identity: identity.value }, distinctId: identity.value.distinct_id } };
  }

  if (operationKeys.length > 0) {
    if (body.event !== undefined) errors.push({ path: 'event', message: `cannot be combined with ${operationKeys.join(', ')}` });
    const operations = operationKeys.map((key) => ({ [key]: withoutWebPushCompanions(body[key]) }));
    const identity = validateIdentityEvent({ distinct_id: body.distinct_id, $user_operations: operations, ...common });
    if (!identity.ok || errors.length > 0 || shapeErrors.length > 0) return { ok: false, errors: withShapeErrors(errors, identity.ok ? [] : identity.errors.map(withoutOperationIndex), shapeErrors) };
    return { ok: true, value: { record: { kind: 'identity', identity: identity.value }, distinctId: identity.value.distinct_id } };
  }

  const event = validateEvent({ distinct_id: body.distinct_id, event: body.event, properties: body.properties, ...common });
  if (!event.ok || errors.length > 0 || shapeErrors.length > 0) return { ok: false, errors: withShapeErrors(errors, event.ok ? [] : event.errors, shapeErrors) };
  return { ok: true, value: { record: { kind: 'track', event: event.value }, distinctId: event.value.distinct_id } };
}

/**
 * The idempotency key of an SDK's `/v2/event` record: `$idempotency_key` when given, else
 * `$insert_id` (the SDK's id of each call), with what is wrong with `$insert_id`. An
 * invalid `$insert_id` is reported once, as itself, and keys nothing.
 */
export function insertIdIdempotency(body: Record<string, unknown>): { errors: FieldError[]; shapeErrors: FieldError[]; idempotency: unknown } {
  const shape = sdkEventParser.errors(body);
  const errors = shape.filter((error) => error.path === '$insert_id');
  return { errors, shapeErrors: shape.filter((error) => error.path !== '$insert_id'), idempotency: body.$idempotency_key ?? (errors.length === 0 ? body.$insert_id : undefined) };
}

/**
 * The record's errors after `errors`, then the SdkEvent schema's other errors at paths
 * the record did not name (both may name a field: reported once, as the record says it).
 */
export function withShapeErrors(errors: readonly FieldError[], recordErrors: readonly FieldError[], shapeErrors: readonly FieldError[]): FieldError[] {
  const named = [...errors, ...recordErrors];
  const seen = new Set(named.map((error) => error.path));
  return [...named, ...shapeErrors.filter((error) => !seen.has(error.path))];
}

/** The user a body names, before it is validated: keys the auth-failure limits per user. */
export function claimedUserOf(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  if (typeof body.distinct_id === 'string') return body.distinct_id;
  const identified = isRecord(body.properties) ? body.properties.$identified_id : undefined;
  return typeof identified === 'string' ? identified : undefined;
}

function withoutWebPushCompanions(args: unknown): unknown {
  if (!isRecord(args) || !Object.hasOwn(args, '$webpush')) return args;
  return Object.fromEntries(Object.entries(args).filter(([key]) => !WEBPUSH_COMPANIONS.includes(key)));
}

/** `$user_operations[0].$set.plan` → `$set.plan`: each operation key of the SDK's body became one operation. */
function withoutOperationIndex(error: FieldError): FieldError {
  return { ...error, path: error.path.replace(/^\$user_operations\[\d+\]\.?/, '') };
}

function renamed(paths: Record<string, string>): (error: FieldError) => FieldError {
  return (error) => ({ ...error, path: paths[error.path] ?? error.path });
}
