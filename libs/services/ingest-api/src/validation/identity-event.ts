import { Static, TSchema, Type } from '@sinclair/typebox';
import { FieldError, FormattedString, Nullable, PROFILE_LIMITS, ParseResult, Present, USER_OPERATION_KEYS, UserOperation, countProfileChanges } from '@herald/contracts';
import { ingestSchemas, isRecord } from './ingest-checks';
import { CHANNEL_KEYS, CHANNEL_PROPERTIES, IdString, InlineChannelsBody, OneOrManyNonBlank, channelsOf, withoutUndefined } from './recipient-schemas';

/** An identity event of the SuprSend SDKs, validated: the user, and the operations to apply to its profile in order. */
export interface NormalisedIdentityEvent {
  readonly distinct_id: string;
  readonly operations: readonly UserOperation[];
  /** The per-tenant profile to change; absent: the global profile. */
  readonly tenant_id?: string;
  readonly idempotency_key?: string;
}

/**
 * The push channels whose token the SDKs send beside `$id_provider` (and `$bundle_id`
 * for iOS). A web push value is a subscription object; its `$id_provider` is dropped.
 */
const PUSH_KEYS = new Set(['$androidpush', '$iospush']);
const PUSH_COMPANIONS = new Set(['$id_provider', '$bundle_id']);
const CHANNEL_KEY_SET: ReadonlySet<string> = new Set(CHANNEL_KEYS);

/** Whether a `POST /event/` body (or one record of a bulk) is an identity event rather than a track event. */
export function isIdentityEvent(body: unknown): boolean {
  return isRecord(body) && Object.hasOwn(body, '$user_operations');
}

const refused = (message: string): TSchema => Type.Unsafe({ not: {}, 'x-message': message });
const channelsRefused = (message: string): Record<string, TSchema> => Object.fromEntries(CHANNEL_KEYS.map((key) => [key, Type.Optional(refused(message))]));
/** Property names of the profile: not blank; `$timezone` an IANA zone. */
const PROFILE_NAMES = { patternProperties: { '^\\s*$': { not: {}, 'x-message': 'a property name must not be empty' } } };
const TimeZone = Type.Optional(FormattedString('time_zone'));

/**
 * One operation object of `$user_operations`: `$set`, `$set_once`, `$add`, `$append`,
 * `$remove` and/or `$unset`, applied in that order. Channel keys take values as inline
 * recipients do. `$preferred_language` (the SDKs' `set_preferred_language`) is stored as
 * `$locale`, the key inline recipients and upserts use.
 */
export const UserOperationSchema = ingestSchemas.named(
  'UserOperation',
  Type.Object(
    {
      $set: Type.Optional(
        Type.Object(
          { ...CHANNEL_PROPERTIES, $timezone: TimeZone, $preferred_language: Type.Optional(FormattedString('locale')) },
          { ...PROFILE_NAMES, description: "Set properties, or replace a channel's values" },
        ),
      ),
      $set_once: Type.Optional(
        Type.Object(
          { ...channelsRefused('a channel cannot be set once; use $set or $append'), $timezone: TimeZone, $preferred_language: Type.Optional(FormattedString('locale')) },
          { ...PROFILE_NAMES, description: 'Set properties that are not set yet' },
        ),
      ),
      $add: Type.Optional(
        Type.Object(channelsRefused('a channel cannot be incremented'), { additionalProperties: Type.Number(), description: 'Add to numeric properties' }),
      ),
      $append: Type.Optional(ListChanges('Add channel values, or append to list properties')),
      $remove: Type.Optional(ListChanges('Remove channel values, or remove from list properties')),
      $unset: Type.Optional(Type.Unsafe<string | string[]>({ ...OneOrManyNonBlank, description: 'Remove properties or whole channels' })),
    },
    { additionalProperties: refused(`must be one of ${USER_OPERATION_KEYS.join(', ')}`) },
  ),
);

/** `$append` / `$remove`: channel values (a push token may come with `$id_provider` and `$bundle_id` beside it), or list properties. */
function ListChanges(description: string) {
  return Type.Object({ ...CHANNEL_PROPERTIES, $timezone: TimeZone }, { ...PROFILE_NAMES, description });
}

/**
 * What the SDKs' `user.get_instance(id).save()`, `bulk_users` and `users.async_edit`
 * send (docs/sdk-compatibility.md). `$schema`, `$insert_id`, `$time`, `env` and
 * `properties` are accepted and ignored.
 */
export const IdentityEventSchema = ingestSchemas.named(
  'IdentityEvent',
  Type.Object(
    {
      distinct_id: Present(IdString),
      $user_operations: Present(Type.Array(UserOperationSchema)),
      tenant_id: Nullable(IdString),
      $idempotency_key: Nullable(FormattedString('idempotency_key', { description: '1 to 255 characters after trimming' })),
    },
    { description: "The operations change the user's profile (created when missing), or its per-tenant profile with `tenant_id`, in order." },
  ),
);
type IdentityEventBody = Static<typeof IdentityEventSchema>;
type OperationBody = Static<typeof UserOperationSchema>;

const identityParser = ingestSchemas.parser(IdentityEventSchema);

/**
 * Validates one identity event; every failing operation is reported by its path
 * (`$user_operations[2].$append.$email`). The SDKs' push companions are folded into the
 * token's object form first, so an added token and its later removal compare equal.
 */
export function validateIdentityEvent(body: unknown): ParseResult<NormalisedIdentityEvent> {
  const folded = withPushCompanionsFolded(body);
  const errors = identityParser.errors(folded);
  if (errors.length > 0) return { ok: false, errors };
  const event = folded as IdentityEventBody;
  const operations = event.$user_operations.map(operationOf);
  const changes = countProfileChanges(operations);
  if (changes > PROFILE_LIMITS.maxChangesPerRequest) {
    const error: FieldError = {
      path: '$user_operations',
      message: `holds ${changes} changes: at most ${PROFILE_LIMITS.maxChangesPerRequest} per event are accepted; split it into several events`,
    };
    return { ok: false, errors: [error] };
  }
  return {
    ok: true,
    value: withoutUndefined({ distinct_id: event.distinct_id, operations, tenant_id: event.tenant_id ?? undefined, idempotency_key: event.$idempotency_key?.trim() }),
  };
}

/** The body with each `$append` / `$remove` push token sent as a string turned into `{token, provider, bundle_id}` (a copy; the rest shared). */
function withPushCompanionsFolded(body: unknown): unknown {
  if (!isRecord(body) || !Array.isArray(body.$user_operations)) return body;
  const operations: unknown[] = body.$user_operations;
  return {
    ...body,
    $user_operations: operations.map((operation) => {
      if (!isRecord(operation)) return operation;
      const { $append, $remove } = operation;
      if (!isRecord($append) && !isRecord($remove)) return operation;
      return { ...operation, ...(isRecord($append) ? { $append: fold($append) } : {}), ...(isRecord($remove) ? { $remove: fold($remove) } : {}) };
    }),
  };
}

function fold(source: Record<string, unknown>): Record<string, unknown> {
  const provider = typeof source.$id_provider === 'string' ? source.$id_provider : undefined;
  const bundle_id = typeof source.$bundle_id === 'string' ? source.$bundle_id : undefined;
  return Object.fromEntries(
    Object.entries(source)
      .filter(([key]) => !PUSH_COMPANIONS.has(key))
      .map(([key, value]) => [key, PUSH_KEYS.has(key) && typeof value === 'string' ? withoutUndefined({ token: value, provider, bundle_id }) : value]),
  );
}

function operationOf(body: OperationBody): UserOperation {
  const operation: Record<string, unknown> = {};
  // The order the SDK sent, as the hand-written readers kept it.
  for (const key of Object.keys(body)) {
    if (key === '$set') operation.$set = assignmentsOf(body.$set as Record<string, unknown>, true);
    else if (key === '$set_once') operation.$set_once = assignmentsOf(body.$set_once as Record<string, unknown>, false);
    else if (key === '$add') operation.$add = body.$add;
    else if (key === '$append' || key === '$remove') operation[key] = { ...propertiesOf(body[key] as Record<string, unknown>), ...channelValues(body[key] as InlineChannelsBody) };
    else if (key === '$unset') operation.$unset = Array.isArray(body.$unset) ? body.$unset : [body.$unset];
  }
  return operation as UserOperation;
}

function assignmentsOf(args: Record<string, unknown>, channels: boolean): Record<string, unknown> {
  const properties = propertiesOf(args);
  const values = channels ? channelValues(args as InlineChannelsBody) : {};
  if (!Object.hasOwn(properties, '$preferred_language')) return { ...properties, ...values };
  const { $preferred_language: locale, ...rest } = properties;
  return { ...rest, $locale: locale, ...values };
}

/** The non-channel keys of an operation, as sent. */
function propertiesOf(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([key]) => !CHANNEL_KEY_SET.has(key)));
}

/** The channel keys of an operation, normalised, as `$<channel>: [values]`. */
function channelValues(args: InlineChannelsBody): Record<string, unknown> {
  return Object.fromEntries(Object.entries(channelsOf(args)).map(([channel, values]) => [`$${channel}`, values]));
}
