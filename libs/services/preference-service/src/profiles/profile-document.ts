import { FieldError, UserOperation } from '@herald/contracts';

/** The channels a profile holds, stored without their `$`. */
export const PROFILE_CHANNELS = ['email', 'sms', 'whatsapp', 'inbox', 'androidpush', 'iospush', 'webpush', 'slack', 'ms_teams'] as const;
const STRING_CHANNELS = new Set(['email', 'sms', 'whatsapp', 'inbox']);

export type JsonObject = Record<string, unknown>;

export interface ProfileDocument {
  readonly properties: JsonObject;
  readonly channels: Record<string, unknown[]>;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export const emptyProfile = (): ProfileDocument => ({ properties: {}, channels: {} });

/** `$email` → `email` when it names a channel. */
function channelOf(key: string): string | undefined {
  return key.startsWith('$') && (PROFILE_CHANNELS as readonly string[]).includes(key.slice(1)) ? key.slice(1) : undefined;
}

function channelValues(channel: string, value: unknown, path: string, errors: FieldError[]): unknown[] {
  const values = Array.isArray(value) ? value : [value];
  return values.filter((v, i) => {
    const ok = STRING_CHANNELS.has(channel) ? typeof v === 'string' && v !== '' : (typeof v === 'string' && v !== '') || (typeof v === 'object' && v !== null && !Array.isArray(v));
    if (!ok) errors.push({ path: Array.isArray(value) ? `${path}[${i}]` : path, message: STRING_CHANNELS.has(channel) ? 'must be a non-empty string' : 'must be a string or an object' });
    return ok;
  });
}

/** Appends values, keeping each once (compared as JSON) and in first-seen order. */
function appendUnique(existing: readonly unknown[], added: readonly unknown[]): unknown[] {
  const seen = new Set(existing.map((v) => JSON.stringify(v)));
  const out = [...existing];
  for (const value of added) {
    const key = JSON.stringify(value);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(value);
    }
  }
  return out;
}

/**
 * The upsert body of users and objects (reference `POST /v1/user/{id}/`,
 * `POST /v1/object/{type}/{id}/`): `$<channel>` keys append channel values, every
 * other key sets a property.
 */
export function applyUpsert(profile: ProfileDocument, body: unknown): Parsed<ProfileDocument> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  const properties = { ...profile.properties };
  const channels = { ...profile.channels };
  for (const [key, value] of Object.entries(body as JsonObject)) {
    const channel = channelOf(key);
    if (channel) channels[channel] = appendUnique(channels[channel] ?? [], channelValues(channel, value, key, errors));
    else properties[key] = value;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { properties, channels } };
}

/** Inline channels and properties of a trigger (already validated by ingest-api). */
export function applyInline(profile: ProfileDocument, inline: { channels: JsonObject; properties: JsonObject; timezone?: string; locale?: string }): ProfileDocument {
  const channels = { ...profile.channels };
  for (const [channel, values] of Object.entries(inline.channels)) {
    if (Array.isArray(values)) channels[channel] = appendUnique(channels[channel] ?? [], values);
  }
  const properties = {
    ...profile.properties,
    ...inline.properties,
    ...(inline.timezone === undefined ? {} : { $timezone: inline.timezone }),
    ...(inline.locale === undefined ? {} : { $locale: inline.locale }),
  };
  return { properties, channels };
}

const OPERATIONS = ['$set', '$set_once', '$unset', '$append', '$remove', '$increment', '$add'] as const;

/** The `{operations: [...]}` body of `PATCH /v1/user/{id}/` and `PATCH /v1/object/{type}/{id}/`, applied in order. */
export function applyOperations(profile: ProfileDocument, body: unknown): Parsed<ProfileDocument> {
  const operations = (body as { operations?: unknown } | null)?.operations;
  if (!Array.isArray(operations) || operations.length === 0) return { ok: false, errors: [{ path: 'operations', message: 'must be a non-empty array' }] };
  const errors: FieldError[] = [];
  let properties = { ...profile.properties };
  const channels = { ...profile.channels };
  operations.forEach((operation: unknown, i) => {
    if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) return void errors.push({ path: `operations[${i}]`, message: 'must be an object' });
    for (const [op, args] of Object.entries(operation as JsonObject)) {
      const at = `operations[${i}].${op}`;
      if (!(OPERATIONS as readonly string[]).includes(op)) {
        errors.push({ path: at, message: `must be one of ${OPERATIONS.join(', ')}` });
        continue;
      }
      if (op === '$unset') {
        if (!Array.isArray(args) || args.some((k) => typeof k !== 'string')) errors.push({ path: at, message: 'must be an array of property or channel names' });
        else
          for (const key of args as string[]) {
            const channel = channelOf(key);
            if (channel) delete channels[channel];
            else delete properties[key];
          }
        continue;
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        errors.push({ path: at, message: 'must be an object' });
        continue;
      }
      for (const [key, value] of Object.entries(args as JsonObject)) {
        const channel = channelOf(key);
        const path = `${at}.${key}`;
        switch (op) {
          case '$set':
            if (channel) channels[channel] = appendUnique([], channelValues(channel, value, path, errors));
            else properties = { ...properties, [key]: value };
            break;
          case '$set_once':
            if (!(key in properties)) properties = { ...properties, [key]: value };
            break;
          case '$append':
            if (channel) channels[channel] = appendUnique(channels[channel] ?? [], channelValues(channel, value, path, errors));
            else properties = { ...properties, [key]: appendUnique(asArray(properties[key]), Array.isArray(value) ? value : [value]) };
            break;
          case '$remove': {
            const removed = new Set((Array.isArray(value) ? value : [value]).map((v) => JSON.stringify(v)));
            if (channel) channels[channel] = (channels[channel] ?? []).filter((v) => !removed.has(JSON.stringify(v)));
            else properties = { ...properties, [key]: asArray(properties[key]).filter((v) => !removed.has(JSON.stringify(v))) };
            break;
          }
          default: {
            // $increment (and $add, its SDK spelling): numbers only.
            const current = properties[key] ?? 0;
            if (typeof value !== 'number' || typeof current !== 'number') errors.push({ path, message: 'must be a number added to a numeric property' });
            else properties = { ...properties, [key]: current + value };
          }
        }
      }
    }
  });
  for (const [channel, values] of Object.entries(channels)) if (values.length === 0) delete channels[channel];
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: { properties, channels } };
}

/**
 * The operations of an identity event (validated by ingest-api), each operation object
 * on its own: one that cannot apply to this profile (`$add` to a text property) is
 * skipped and reported, and the others still apply, since the SDK that sent them has
 * long had its 202.
 */
export function applyUserOperations(profile: ProfileDocument, operations: readonly UserOperation[]): { profile: ProfileDocument; errors: FieldError[] } {
  let current = profile;
  const errors: FieldError[] = [];
  operations.forEach((operation, i) => {
    const next = applyOperations(current, { operations: [operation] });
    if (next.ok) current = next.value;
    else errors.push(...next.errors.map((e) => ({ path: e.path.replace(/^operations\[0\]/, `operations[${i}]`), message: e.message })));
  });
  return { profile: current, errors };
}

function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** A per-tenant profile over the global one: tenant properties win, channel lists of the tenant replace the global ones. */
export function mergeProfiles(global: ProfileDocument, tenant: ProfileDocument | undefined): ProfileDocument {
  if (!tenant) return global;
  return { properties: { ...global.properties, ...tenant.properties }, channels: { ...global.channels, ...tenant.channels } };
}

/** Channels as the reference answers them: `$email: [{value, status, perma_status}]`. */
export function channelView(channels: Record<string, unknown[]>): Record<string, Array<{ value: unknown; status: string; perma_status: string }>> {
  return Object.fromEntries(
    PROFILE_CHANNELS.filter((c) => (channels[c] ?? []).length > 0).map((c) => [`$${c}`, channels[c].map((value) => ({ value, status: 'active', perma_status: 'active' }))]),
  );
}
