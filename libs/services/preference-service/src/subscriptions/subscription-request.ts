import { AudienceSubject, FieldError } from '@herald/contracts';
import { JsonObject, Parsed } from '../profiles/profile-document';
import { MAX_SUBSCRIBERS_PER_CALL, ObjectSubscriber, SUBSCRIPTION_BODIES, Subscriber, SubscriptionRemove, UserSubscriber } from './request-bodies';

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

/**
 * The body of `POST /v1/object/{type}/{id}/subscription/`, validated by its schema
 * (`SubscriptionAdd`) and, in the same answer, by the rule the path takes part in: an
 * object cannot subscribe to itself. A subscriber named twice counts once.
 */
export function subscribeRequest(body: unknown, parent: Parent): Parsed<SubscribeRequest> {
  const parsed = SUBSCRIPTION_BODIES.add.parse(body);
  const selfSubscriptions = selfSubscriptionsOf(body, parent);
  if (!parsed.ok || selfSubscriptions.length > 0) return { ok: false, errors: [...(parsed.ok ? [] : parsed.errors), ...selfSubscriptions] };
  return { ok: true, value: { subscribers: dedupe(parsed.value.recipients.map(subscriberInput)), properties: parsed.value.properties ?? {} } };
}

/** The recipients that name the parent object itself, read from the body as sent (the schema may have refused others of its recipients). */
function selfSubscriptionsOf(body: unknown, parent: Parent): FieldError[] {
  const recipients = isRecord(body) && Array.isArray(body.recipients) ? body.recipients : [];
  return recipients.flatMap((item: unknown, i) =>
    isRecord(item) && !Object.hasOwn(item, 'distinct_id') && item.id === parent.id && item.object_type === parent.object_type ? [{ path: `recipients[${i}]`, message: 'an object cannot subscribe to itself' }] : [],
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The subscribers to remove: the body's `recipients` (`SubscriptionRemove`), or the
 * reference's `recipients` query parameter (comma-separated distinct_ids) when the body
 * has none.
 */
export function unsubscribeSubjects(body: SubscriptionRemove, recipientsQuery: unknown): Parsed<AudienceSubject[]> {
  const fromBody = isRecord(body) ? body.recipients : undefined;
  if (fromBody !== undefined) return { ok: true, value: fromBody.map((item) => subscriberInput(item).subject) };
  if (typeof recipientsQuery !== 'string') return { ok: false, errors: [{ path: 'recipients', message: `must be an array of 1 to ${MAX_SUBSCRIBERS_PER_CALL} recipients` }] };
  const ids = recipientsQuery.split(',').map((id) => id.trim()).filter((id) => id !== '');
  if (ids.length === 0) return { ok: false, errors: [{ path: 'recipients', message: 'must name at least one distinct_id' }] };
  if (ids.length > MAX_SUBSCRIBERS_PER_CALL) return { ok: false, errors: [{ path: 'recipients', message: `must name at most ${MAX_SUBSCRIBERS_PER_CALL} recipients` }] };
  return { ok: true, value: ids.map((distinct_id) => ({ type: 'user', distinct_id })) };
}

const isUser = (item: UserSubscriber | ObjectSubscriber): item is UserSubscriber => Object.hasOwn(item, 'distinct_id');

function subscriberInput(item: Subscriber): SubscriberInput {
  if (typeof item === 'string') return { subject: { type: 'user', distinct_id: item }, profile: {} };
  if (isUser(item)) {
    const { distinct_id, ...profile } = item;
    return { subject: { type: 'user', distinct_id }, profile };
  }
  const { id, object_type, ...profile } = item;
  return { subject: { type: 'object', object_type, id }, profile };
}

/** A subscriber named twice is added once, with the data of its last mention. */
function dedupe(subscribers: readonly SubscriberInput[]): SubscriberInput[] {
  const byKey = new Map<string, SubscriberInput>();
  for (const s of subscribers) byKey.set(JSON.stringify(s.subject), s);
  return [...byKey.values()];
}
