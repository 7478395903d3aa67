import { FieldError, HeraldError, PROFILE_LIMITS, UserOperation, countProfileChanges, withoutCredentials } from '@herald/contracts';
import { PROFILE_BODIES, PROFILE_CHANNELS, ProfileOperation, ProfileOperations } from './request-bodies';

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

/**
 * A list whose values are compared as JSON, with O(1) membership: appending or
 * removing a value costs its own size, not the list's, so a request of many `$append`
 * and `$remove` operations on a long list stays linear. Values already repeated in the
 * stored list stay as they are (appends only skip values already there).
 */
class JsonValueList {
  private readonly items: Array<{ readonly value: unknown } | undefined> = [];
  private readonly positions = new Map<string, number[]>();

  constructor(initial: readonly unknown[] = []) {
    for (const value of initial) this.push(value, JSON.stringify(value));
  }

  append(values: readonly unknown[]): void {
    for (const value of values) {
      const key = JSON.stringify(value);
      if (!this.positions.has(key)) this.push(value, key);
    }
  }

  remove(values: readonly unknown[]): void {
    for (const value of values) {
      const key = JSON.stringify(value);
      for (const position of this.positions.get(key) ?? []) this.items[position] = undefined;
      this.positions.delete(key);
    }
  }

  toArray(): unknown[] {
    const out: unknown[] = [];
    for (const item of this.items) if (item !== undefined) out.push(item.value);
    return out;
  }

  private push(value: unknown, key: string): void {
    const at = this.positions.get(key);
    if (at) at.push(this.items.length);
    else this.positions.set(key, [this.items.length]);
    this.items.push({ value });
  }
}

/**
 * A profile being changed: maps instead of object copies, and list values kept as
 * `JsonValueList`s between operations, so each change costs its own size. Keys go
 * through Maps and `Object.fromEntries`, so `__proto__` or `constructor` stay plain keys.
 */
class ProfileDraft {
  private readonly properties: Map<string, unknown>;
  /** Stored lists stay plain arrays until an operation changes them. */
  private readonly channels: Map<string, unknown[] | JsonValueList>;

  constructor(profile: ProfileDocument) {
    this.properties = new Map(Object.entries(profile.properties));
    this.channels = new Map(Object.entries(profile.channels));
  }

  hasProperty(key: string): boolean {
    return this.properties.has(key);
  }

  property(key: string): unknown {
    const value = this.properties.get(key);
    return value instanceof JsonValueList ? value.toArray() : value;
  }

  isNumber(key: string): boolean {
    return typeof (this.properties.get(key) ?? 0) === 'number';
  }

  set(key: string, value: unknown): void {
    this.properties.set(key, value);
  }

  unset(key: string): void {
    const channel = channelOf(key);
    if (channel) this.channels.delete(channel);
    else this.properties.delete(key);
  }

  /** The property as a list to change in place (a lone value becomes a one-item list). */
  listProperty(key: string): JsonValueList {
    const current = this.properties.get(key);
    if (current instanceof JsonValueList) return current;
    const list = new JsonValueList(asArray(current));
    this.properties.set(key, list);
    return list;
  }

  channel(channel: string): JsonValueList {
    const current = this.channels.get(channel);
    if (current instanceof JsonValueList) return current;
    const list = new JsonValueList(current ?? []);
    this.channels.set(channel, list);
    return list;
  }

  replaceChannel(channel: string, values: readonly unknown[]): void {
    const list = new JsonValueList();
    list.append(values);
    this.channels.set(channel, list);
  }

  /** The document, empty channel lists left out. */
  toDocument(): ProfileDocument {
    const properties = Object.fromEntries([...this.properties].map(([key, value]) => [key, value instanceof JsonValueList ? value.toArray() : value]));
    const channels: Record<string, unknown[]> = {};
    for (const [channel, list] of this.channels) {
      const values = list instanceof JsonValueList ? list.toArray() : list;
      if (values.length > 0) channels[channel] = values;
    }
    return { properties, channels };
  }
}

function tooManyChanges(count: number, path: string): FieldError {
  return { path, message: `holds ${count} changes: at most ${PROFILE_LIMITS.maxChangesPerRequest} per request are accepted; split it into several requests` };
}

/**
 * The upsert body of users and objects (reference `POST /v1/user/{id}/`,
 * `POST /v1/object/{type}/{id}/`; `ProfileUpsert`, whose schema checked the channel
 * values): `$<channel>` keys append channel values, every other key sets a property.
 * What remains to refuse is a request of too many changes.
 */
export function applyUpsert(profile: ProfileDocument, body: JsonObject): Parsed<ProfileDocument> {
  const entries = Object.entries(body);
  if (entries.length > PROFILE_LIMITS.maxChangesPerRequest) return { ok: false, errors: [tooManyChanges(entries.length, '')] };
  const draft = new ProfileDraft(profile);
  for (const [key, value] of entries) {
    const channel = channelOf(key);
    if (channel) draft.channel(channel).append(Array.isArray(value) ? value : [value]);
    else draft.set(key, value);
  }
  return { ok: true, value: draft.toDocument() };
}

/** Inline channels and properties of a trigger (already validated by ingest-api). */
export function applyInline(profile: ProfileDocument, inline: { channels: JsonObject; properties: JsonObject; timezone?: string; locale?: string }): ProfileDocument {
  const draft = new ProfileDraft(profile);
  for (const [channel, values] of Object.entries(inline.channels)) {
    if (Array.isArray(values)) draft.channel(channel).append(values);
  }
  for (const [key, value] of Object.entries(inline.properties)) draft.set(key, value);
  if (inline.timezone !== undefined) draft.set('$timezone', inline.timezone);
  if (inline.locale !== undefined) draft.set('$locale', inline.locale);
  return draft.toDocument();
}

/**
 * What is wrong with one operation object that its shape does not say: an increment
 * (`$increment`, `$add`) needs a property that holds a number (or nothing) when it runs,
 * after the operation's own earlier keys (`{"$set": {"n": 1}, "$add": {"n": 2}}`).
 */
function incrementProblems(draft: ProfileDraft, operation: ProfileOperation, at: string): FieldError[] {
  const problems: FieldError[] = [];
  const earlier: Array<[string, unknown]> = [];
  for (const [op, args] of Object.entries(operation)) {
    if ((op === '$increment' || op === '$add') && typeof args === 'object' && args !== null) {
      for (const key of Object.keys(args)) {
        if (!isNumberWhenReached(draft, earlier, key)) problems.push({ path: `${at}.${op}.${key}`, message: 'must be a number added to a numeric property' });
      }
    }
    earlier.push([op, args]);
  }
  return problems;
}

/** Whether property `key` holds a number (or nothing) once the `earlier` operations of the same object have run. */
function isNumberWhenReached(draft: ProfileDraft, earlier: ReadonlyArray<[string, unknown]>, key: string): boolean {
  let present = draft.hasProperty(key);
  let numeric = draft.isNumber(key);
  for (const [op, args] of earlier) {
    if (op === '$unset') {
      if (!channelOf(key) && Array.isArray(args) && args.includes(key)) [present, numeric] = [false, true];
      continue;
    }
    if (channelOf(key) || typeof args !== 'object' || args === null || !Object.hasOwn(args, key)) continue;
    const value = (args as JsonObject)[key];
    if (op === '$set' || (op === '$set_once' && !present)) [present, numeric] = [true, typeof (value ?? 0) === 'number'];
    else if (op === '$append' || op === '$remove') [present, numeric] = [true, false];
  }
  return numeric;
}

/** Applies one operation object that its schema and `incrementProblems` found nothing wrong with. */
function applyOperation(draft: ProfileDraft, operation: ProfileOperation): void {
  for (const [op, args] of Object.entries(operation)) {
    if (op === '$unset') {
      for (const key of args as string[]) draft.unset(key);
      continue;
    }
    for (const [key, value] of Object.entries(args as JsonObject)) {
      const channel = channelOf(key);
      const values = Array.isArray(value) ? value : [value];
      switch (op) {
        case '$set':
          if (channel) draft.replaceChannel(channel, values);
          else draft.set(key, value);
          break;
        case '$set_once':
          if (!draft.hasProperty(key)) draft.set(key, value);
          break;
        case '$append':
          (channel ? draft.channel(channel) : draft.listProperty(key)).append(values);
          break;
        case '$remove':
          (channel ? draft.channel(channel) : draft.listProperty(key)).remove(values);
          break;
        default:
          // $increment (and $add, its SDK spelling): numbers only, checked before.
          draft.set(key, ((draft.property(key) ?? 0) as number) + (value as number));
      }
    }
  }
}

/**
 * The `{operations: [...]}` body of `PATCH /v1/user/{id}/` and `PATCH /v1/object/{type}/{id}/`
 * (`ProfileOperations`, its shape checked by the schema), applied in order, all or nothing.
 */
export function applyOperations(profile: ProfileDocument, body: ProfileOperations): Parsed<ProfileDocument> {
  const { operations } = body;
  const changes = countProfileChanges(operations);
  if (changes > PROFILE_LIMITS.maxChangesPerRequest) return { ok: false, errors: [tooManyChanges(changes, 'operations')] };
  const errors: FieldError[] = [];
  const draft = new ProfileDraft(profile);
  operations.forEach((operation, i) => {
    const problems = incrementProblems(draft, operation, `operations[${i}]`);
    if (problems.length > 0) errors.push(...problems);
    else applyOperation(draft, operation);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: draft.toDocument() };
}

/**
 * The operations of an identity event (validated by ingest-api), each operation object
 * on its own: one that cannot apply to this profile (`$add` to a text property), or
 * that a `PATCH` would refuse, is skipped and reported, and the others still apply,
 * since the SDK that sent them has long had its 202.
 */
export function applyUserOperations(profile: ProfileDocument, operations: readonly UserOperation[]): { profile: ProfileDocument; errors: FieldError[] } {
  const changes = countProfileChanges(operations);
  if (changes > PROFILE_LIMITS.maxChangesPerRequest) return { profile, errors: [tooManyChanges(changes, 'operations')] };
  const draft = new ProfileDraft(profile);
  const errors: FieldError[] = [];
  operations.forEach((operation, i) => {
    const at = `operations[${i}]`;
    const parsed = PROFILE_BODIES.operation.parse(operation);
    const problems = parsed.ok ? incrementProblems(draft, parsed.value, at) : parsed.errors.map((error) => ({ path: under(at, error.path), message: error.message }));
    if (problems.length > 0) errors.push(...problems);
    else if (parsed.ok) applyOperation(draft, parsed.value);
  });
  return { profile: draft.toDocument(), errors };
}

/** `$set.$email[0]` under `operations[2]` is `operations[2].$set.$email[0]`. */
function under(parent: string, path: string): string {
  return path === '' ? parent : path.startsWith('[') ? `${parent}${path}` : `${parent}.${path}`;
}

function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Why a changed profile cannot be stored (too many properties, too many bytes), or
 * undefined. `bytes` is the size of its JSON, which the caller serialises anyway.
 */
export function profileLimitProblem(profile: ProfileDocument, bytes: number): HeraldError | undefined {
  const properties = Object.keys(profile.properties).length;
  if (properties > PROFILE_LIMITS.maxProperties) {
    return new HeraldError('payload_too_large', `the profile would hold ${properties} properties; at most ${PROFILE_LIMITS.maxProperties} are accepted`, [
      { path: 'properties', message: `at most ${PROFILE_LIMITS.maxProperties} properties per profile (it would hold ${properties})` },
    ]);
  }
  if (bytes > PROFILE_LIMITS.maxBytes) {
    return new HeraldError('payload_too_large', `the profile would be ${bytes} bytes; at most ${PROFILE_LIMITS.maxBytes} bytes (256 KiB) are accepted`, [
      { path: '', message: `the stored profile would be ${bytes} bytes as JSON; at most ${PROFILE_LIMITS.maxBytes} bytes (256 KiB) per profile` },
    ]);
  }
  return undefined;
}

/** A per-tenant profile over the global one: tenant properties win, channel lists of the tenant replace the global ones. */
export function mergeProfiles(global: ProfileDocument, tenant: ProfileDocument | undefined): ProfileDocument {
  if (!tenant) return global;
  return { properties: { ...global.properties, ...tenant.properties }, channels: { ...global.channels, ...tenant.channels } };
}

/** Channels as the reference answers them: `$email: [{value, status, perma_status}]`. */
/**
 * A stored channel identity as a read shows it: without its credentials
 * (`withoutCredentials`) and without Herald's own `form` tag. Writes keep both for delivery.
 */
function identityView(value: unknown): unknown {
  const shown = withoutCredentials(value);
  if (shown === null || typeof shown !== 'object' || Array.isArray(shown)) return shown;
  const { form: _form, ...rest } = shown as Record<string, unknown>;
  return rest;
}

export function channelView(channels: Record<string, unknown[]>): Record<string, Array<{ value: unknown; status: string; perma_status: string }>> {
  return Object.fromEntries(
    PROFILE_CHANNELS.filter((c) => (channels[c] ?? []).length > 0).map((c) => [
      `$${c}`,
      channels[c].map((value) => ({ value: identityView(value), status: 'active', perma_status: 'active' })),
    ]),
  );
}
