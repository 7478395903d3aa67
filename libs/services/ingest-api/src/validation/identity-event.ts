import { PROFILE_LIMITS, ParseResult, USER_OPERATION_KEYS, UserOperation, countProfileChanges } from '@herald/contracts';
import { CHANNEL_KEYS, readInlineChannels } from './channel-identities';
import { LOCALE, TIME_ZONE } from './formats';
import { Issues, itemPath } from './issues';
import { ObjectReader, isRecord, readString, withoutUndefined } from './json-reader';
import { readIdempotencyKey, readTenantId } from './shared-fields';

/** An identity event of the SuprSend SDKs, validated: the user, and the operations to apply to its profile in order. */
export interface NormalisedIdentityEvent {
  readonly distinct_id: string;
  readonly operations: readonly UserOperation[];
  /** The per-tenant profile to change; absent: the global profile. */
  readonly tenant_id?: string;
  readonly idempotency_key?: string;
}

type OperationKey = (typeof USER_OPERATION_KEYS)[number];

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

/**
 * Validates one identity event (docs/sdk-compatibility.md): `{distinct_id,
 * $user_operations: [...], tenant_id?, $idempotency_key?}` plus the SDKs' `$schema`,
 * `$insert_id`, `$time`, `env` and `properties`, which are ignored. Each operation
 * object holds `$set`, `$set_once`, `$add`, `$append`, `$remove` or `$unset`; every
 * failing one is reported by its path (`$user_operations[2].$append.$email`).
 */
export function validateIdentityEvent(body: unknown): ParseResult<NormalisedIdentityEvent> {
  const issues = new Issues();
  const root = ObjectReader.of(body, '', issues);
  if (root === undefined) return { ok: false, errors: issues.list() };

  const distinct_id = root.string('distinct_id', { required: true, nonBlank: true });
  const operations = root.list('$user_operations', readOperation, { required: true });
  const changes = operations === undefined ? 0 : countProfileChanges(operations);
  if (changes > PROFILE_LIMITS.maxChangesPerRequest) {
    root.report('$user_operations', `holds ${changes} changes: at most ${PROFILE_LIMITS.maxChangesPerRequest} per event are accepted; split it into several events`);
  }
  const { tenant_id } = readTenantId(root);
  const idempotency_key = readIdempotencyKey(root);

  if (!issues.isEmpty || distinct_id === undefined || operations === undefined) return { ok: false, errors: issues.list() };
  return { ok: true, value: withoutUndefined({ distinct_id, operations, tenant_id, idempotency_key }) };
}

function readOperation(value: unknown, path: string, issues: Issues): UserOperation | undefined {
  const reader = ObjectReader.of(value, path, issues);
  if (reader === undefined) return undefined;
  const operation: Partial<Record<OperationKey, unknown>> = {};
  for (const [key, args] of Object.entries(reader.source)) {
    const read = isOperationKey(key) ? OPERATION_READERS[key] : undefined;
    if (read === undefined) reader.report(key, `must be one of ${USER_OPERATION_KEYS.join(', ')}`);
    else operation[key as OperationKey] = read(args, reader.pathOf(key), issues);
  }
  return operation as UserOperation;
}

function isOperationKey(key: string): key is OperationKey {
  return (USER_OPERATION_KEYS as readonly string[]).includes(key);
}

const OPERATION_READERS: Record<OperationKey, (args: unknown, path: string, issues: Issues) => unknown> = {
  $set: (args, path, issues) => readAssignments(args, path, issues, { channels: true }),
  $set_once: (args, path, issues) => readAssignments(args, path, issues, { channels: false }),
  $add: readIncrements,
  $append: readListChanges,
  $remove: readListChanges,
  $unset: readNames,
};

/**
 * `$set` / `$set_once`: properties of any JSON value. `$set` may also replace a channel's
 * values. `$preferred_language` (the SDKs' `set_preferred_language`) is stored as
 * `$locale`, the key inline recipients and upserts use; `$timezone` must be an IANA zone.
 */
function readAssignments(args: unknown, path: string, issues: Issues, allow: { channels: boolean }): Record<string, unknown> | undefined {
  const reader = ObjectReader.of(args, path, issues);
  if (reader === undefined) return undefined;
  if (!allow.channels) for (const key of Object.keys(reader.source)) if (CHANNEL_KEY_SET.has(key)) reader.report(key, 'a channel cannot be set once; use $set or $append');
  const properties = readProperties(reader, issues);
  if (Object.hasOwn(properties, '$preferred_language')) {
    const { $preferred_language: language, ...rest } = properties;
    const locale = readString(language, reader.pathOf('$preferred_language'), issues, { format: LOCALE });
    return { ...rest, ...(locale === undefined ? {} : { $locale: locale }), ...(allow.channels ? channelValues(reader) : {}) };
  }
  return { ...properties, ...(allow.channels ? channelValues(reader) : {}) };
}

/** The non-channel keys of an operation: blank names are refused, `$timezone` checked. */
function readProperties(reader: ObjectReader, issues: Issues): Record<string, unknown> {
  const properties = reader.rest(CHANNEL_KEY_SET);
  for (const key of Object.keys(properties)) if (key.trim() === '') reader.report(key, 'a property name must not be empty');
  if (Object.hasOwn(properties, '$timezone')) readString(properties.$timezone, reader.pathOf('$timezone'), issues, { format: TIME_ZONE });
  return properties;
}

/** `$add`: numbers added to numeric properties. */
function readIncrements(args: unknown, path: string, issues: Issues): Record<string, number> | undefined {
  const reader = ObjectReader.of(args, path, issues);
  if (reader === undefined) return undefined;
  const increments: Record<string, number> = {};
  for (const [key, value] of Object.entries(reader.source)) {
    if (CHANNEL_KEY_SET.has(key)) reader.report(key, 'a channel cannot be incremented');
    else if (typeof value !== 'number' || !Number.isFinite(value)) reader.report(key, 'must be a number');
    else increments[key] = value;
  }
  return increments;
}

/**
 * `$append` / `$remove`: channel values (each checked like an inline recipient's) or
 * list properties. The SDKs send a push token with its provider beside it
 * (`{$androidpush: "tok", $id_provider: "fcm"}`); it is folded into the token's object
 * form so an added token and its later removal compare equal.
 */
function readListChanges(args: unknown, path: string, issues: Issues): Record<string, unknown> | undefined {
  const reader = ObjectReader.of(args, path, issues);
  if (reader === undefined) return undefined;
  const folded = new ObjectReader(foldPushCompanions(reader.source), path, issues);
  const properties = readProperties(new ObjectReader(folded.rest(PUSH_COMPANIONS), path, issues), issues);
  return { ...properties, ...channelValues(folded) };
}

function foldPushCompanions(source: Record<string, unknown>): Record<string, unknown> {
  const provider = typeof source.$id_provider === 'string' ? source.$id_provider : undefined;
  const bundle_id = typeof source.$bundle_id === 'string' ? source.$bundle_id : undefined;
  return Object.fromEntries(
    Object.entries(source).map(([key, value]) => [key, PUSH_KEYS.has(key) && typeof value === 'string' ? withoutUndefined({ token: value, provider, bundle_id }) : value]),
  );
}

/** The channel keys of an operation, validated, as `$<channel>: [values]`. */
function channelValues(reader: ObjectReader): Record<string, unknown> {
  return Object.fromEntries(Object.entries(readInlineChannels(reader)).map(([channel, values]) => [`$${channel}`, values]));
}

/** `$unset`: the names of properties or channels (`$email`) to remove. */
function readNames(args: unknown, path: string, issues: Issues): string[] | undefined {
  const names = Array.isArray(args) ? args : [args];
  return names.flatMap((name, i) => {
    const one = readString(name, Array.isArray(args) ? itemPath(path, i) : path, issues, { nonBlank: true });
    return one === undefined ? [] : [one];
  });
}
