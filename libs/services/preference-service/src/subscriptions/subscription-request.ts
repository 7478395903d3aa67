import { AudienceSubject, FieldError } from '@herald/contracts';
import { JsonObject, Parsed } from '../profiles/profile-document';

/** Reference: "You can add up to 100 recipients in a single API". */
export const MAX_SUBSCRIBERS_PER_CALL = 100;

/** A subscriber to add, with what it carried inline for its own profile (the upsert body's form). */
export interface SubscriberInput {
  readonly subject: AudienceSubject;
  readonly profile: JsonObject;
}

export interface SubscribeRequest {
  readonly subscribers: readonly SubscriberInput[];
  /** The relation's properties, the same for every subscriber of the call. */
  readonly properties: JsonObject;
}

type Parent = { readonly object_type: string; readonly id: string };

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const nonBlank = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * The body of `POST /v1/object/{type}/{id}/subscription/`: `recipients` holds
 * distinct_ids, users (`{distinct_id, ...profile}`) or child objects (`{id,
 * object_type, ...properties}`); `properties` describe the relation. An object cannot
 * subscribe to itself.
 */
export function parseSubscribe(body: unknown, parent: Parent): Parsed<SubscribeRequest> {
  if (!isObject(body)) return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  const recipients = recipientList(body.recipients, errors);
  const subscribers = recipients.flatMap((item, i) => {
    const input = subscriberInput(item, `recipients[${i}]`, errors);
    if (input && isParent(input.subject, parent)) errors.push({ path: `recipients[${i}]`, message: 'an object cannot subscribe to itself' });
    return input ? [input] : [];
  });
  if (body.properties !== undefined && body.properties !== null && !isObject(body.properties)) errors.push({ path: 'properties', message: 'must be an object' });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { subscribers: dedupe(subscribers), properties: isObject(body.properties) ? body.properties : {} } };
}

/**
 * The subscribers to remove: the body's `recipients` (distinct_ids or `{id,
 * object_type}`), or the reference's `recipients` query parameter (comma-separated
 * distinct_ids) when the body has none.
 */
export function parseUnsubscribe(body: unknown, recipientsQuery: unknown): Parsed<AudienceSubject[]> {
  const errors: FieldError[] = [];
  const fromBody = isObject(body) ? body.recipients : undefined;
  if (fromBody === undefined && typeof recipientsQuery === 'string') {
    const ids = recipientsQuery.split(',').map((id) => id.trim()).filter((id) => id !== '');
    if (ids.length === 0) return { ok: false, errors: [{ path: 'recipients', message: 'must name at least one distinct_id' }] };
    if (ids.length > MAX_SUBSCRIBERS_PER_CALL) return { ok: false, errors: [{ path: 'recipients', message: `must name at most ${MAX_SUBSCRIBERS_PER_CALL} recipients` }] };
    return { ok: true, value: ids.map((distinct_id) => ({ type: 'user', distinct_id })) };
  }
  const subjects = recipientList(fromBody, errors).flatMap((item, i) => {
    const input = subscriberInput(item, `recipients[${i}]`, errors);
    return input ? [input.subject] : [];
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: subjects };
}

function recipientList(value: unknown, errors: FieldError[]): unknown[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SUBSCRIBERS_PER_CALL) {
    errors.push({ path: 'recipients', message: `must be an array of 1 to ${MAX_SUBSCRIBERS_PER_CALL} recipients` });
    return [];
  }
  return value;
}

function subscriberInput(item: unknown, path: string, errors: FieldError[]): SubscriberInput | undefined {
  if (nonBlank(item)) return { subject: { type: 'user', distinct_id: item }, profile: {} };
  if (!isObject(item)) return void errors.push({ path, message: 'must be a distinct_id, a user {distinct_id, ...} or an object {id, object_type, ...}' });
  const { distinct_id, id, object_type, ...profile } = item;
  if (distinct_id !== undefined) {
    if (!nonBlank(distinct_id)) return void errors.push({ path: `${path}.distinct_id`, message: 'must be a non-empty string' });
    if (object_type !== undefined) return void errors.push({ path, message: 'must be either a user (distinct_id) or an object (id, object_type), not both' });
    return { subject: { type: 'user', distinct_id }, profile: id === undefined ? profile : { ...profile, id } };
  }
  if (!nonBlank(id) || !nonBlank(object_type)) return void errors.push({ path, message: 'an object needs a non-empty id and object_type' });
  return { subject: { type: 'object', object_type, id }, profile };
}

function isParent(subject: AudienceSubject, parent: Parent): boolean {
  return subject.type === 'object' && subject.object_type === parent.object_type && subject.id === parent.id;
}

/** A subscriber named twice is added once, with the data of its last mention. */
function dedupe(subscribers: readonly SubscriberInput[]): SubscriberInput[] {
  const byKey = new Map<string, SubscriberInput>();
  for (const s of subscribers) byKey.set(JSON.stringify(s.subject), s);
  return [...byKey.values()];
}
