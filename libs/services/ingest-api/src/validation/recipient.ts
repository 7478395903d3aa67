import { CHANNEL_KEYS, readChannelFilter, readInlineChannels } from './channel-identities';
import { LOCALE, TIME_ZONE } from './formats';
import { Issues } from './issues';
import { ObjectReader, isRecord, readString, withoutUndefined } from './json-reader';
import { InlineProfile, ObjectRecipient, Recipient, UserRecipient } from '@herald/contracts';

/**
 * The trigger's top-level tenant_id as read, for the `$context.tenant_id` rule
 * (decisions.md: a mismatch is a 400 and no run). When the top-level value was
 * itself wrong it is reported there, and not again at every `$context`.
 */
export interface TenantScope {
  readonly tenant_id: string | undefined;
  readonly valid: boolean;
}

const PROFILE_KEYS = [...CHANNEL_KEYS, '$channels', '$timezone', '$locale', '$context'];
const USER_KEYS: ReadonlySet<string> = new Set(['distinct_id', 'is_transient', ...PROFILE_KEYS]);
const OBJECT_KEYS: ReadonlySet<string> = new Set(['id', 'object_type', ...PROFILE_KEYS]);

/**
 * One entry of `recipients`: a distinct_id string, an object recipient (told apart by
 * holding `object_type`, as the reference's two object forms differ only there), or an
 * inline user.
 */
export function readRecipient(value: unknown, path: string, issues: Issues, tenant: TenantScope): Recipient | undefined {
  if (typeof value === 'string') return bareUser(value, path, issues);
  if (!isRecord(value)) {
    issues.add(path, 'must be a distinct_id string or a recipient object');
    return undefined;
  }
  const reader = new ObjectReader(value, path, issues);
  return Object.hasOwn(value, 'object_type') ? readObjectRecipient(reader, tenant) : readUser(reader, tenant);
}

/** `actor`: a distinct_id string (as the SDKs allow) or a user object (interface 2.1.3). */
export function readActor(value: unknown, path: string, issues: Issues, tenant: TenantScope): UserRecipient | undefined {
  if (typeof value === 'string') return bareUser(value, path, issues);
  if (!isRecord(value)) {
    issues.add(path, 'must be a distinct_id string or an object');
    return undefined;
  }
  return readUser(new ObjectReader(value, path, issues), tenant);
}

function bareUser(value: string, path: string, issues: Issues): UserRecipient | undefined {
  const distinct_id = readString(value, path, issues, { nonBlank: true });
  if (distinct_id === undefined) return undefined;
  return { kind: 'user', distinct_id, is_transient: false, inline: false, channels: {}, properties: {} };
}

function readUser(reader: ObjectReader, tenant: TenantScope): UserRecipient | undefined {
  const is_transient = reader.boolean('is_transient') === true;
  const distinct_id = reader.string('distinct_id', { required: !is_transient, nonBlank: true });
  const profile = readProfile(reader, tenant, USER_KEYS);
  if (distinct_id === undefined && !is_transient) return undefined;
  return { kind: 'user', distinct_id: distinct_id ?? null, is_transient, ...profile };
}

function readObjectRecipient(reader: ObjectReader, tenant: TenantScope): ObjectRecipient | undefined {
  const object_type = reader.string('object_type', { required: true, nonBlank: true });
  const id = reader.string('id', { required: true, nonBlank: true });
  const profile = readProfile(reader, tenant, OBJECT_KEYS);
  if (object_type === undefined || id === undefined) return undefined;
  return { kind: 'object', object_type, id, ...profile };
}

/**
 * What users and objects share: inline channels, `$channels`, `$timezone`, `$locale`,
 * `$context`, and every other property as sent. The reference types extra properties
 * as strings, but SuprSend clients send numbers, booleans and nested objects there
 * (templates loop over them), so any JSON value is kept.
 */
function readProfile(reader: ObjectReader, tenant: TenantScope, known: ReadonlySet<string>): InlineProfile {
  return withoutUndefined({
    inline: true,
    channels: readInlineChannels(reader),
    only_channels: readChannelFilter(reader),
    timezone: reader.string('$timezone', { format: TIME_ZONE }),
    locale: reader.string('$locale', { format: LOCALE }),
    context_tenant_id: readContextTenant(reader, tenant),
    properties: reader.rest(known),
  });
}

function readContextTenant(reader: ObjectReader, tenant: TenantScope): string | undefined {
  const context = reader.object('$context');
  const tenant_id = context?.string('tenant_id', { nonBlank: true });
  if (context === undefined || tenant_id === undefined || !tenant.valid || tenant_id === tenant.tenant_id) return tenant_id;
  context.report(
    'tenant_id',
    tenant.tenant_id === undefined ? 'must equal the top-level tenant_id, which is absent' : 'must equal the top-level tenant_id',
  );
  return undefined;
}
