import { Static, TUnsafe, Type } from '@sinclair/typebox';
import { Nullable } from '@herald/contracts';
import { audienceSchemas, requiredBodyParser } from '../http/audience-schemas';
import { PROFILE_CHANNEL_PROPERTIES } from '../profiles/request-bodies';

/**
 * The bodies of `POST` and `DELETE /v1/object/{type}/{id}/subscription/`, each one schema
 * (docs/architecture.md, "Contracts"). An object subscribing to itself (a rule between
 * the body and the path), a subscriber named twice and the `recipients` query of the
 * delete stay code in subscription-request.ts.
 */

/** Reference: "You can add up to 100 recipients in a single API". */
export const MAX_SUBSCRIBERS_PER_CALL = 100;

const ANY_FORM = 'must be a distinct_id, a user {distinct_id, ...} or an object {id, object_type, ...}';
const nonBlank = (message: string, description?: string): Record<string, unknown> => ({ type: 'string', pattern: '\\S', 'x-message': message, ...(description ? { description } : {}) });
/** Inside an `if`, whose failures are never reported: the `else` words them. */
const NON_BLANK = { type: 'string', pattern: '\\S' };
const refused = (message: string): Record<string, unknown> => ({ not: {}, 'x-message': message });

/** A user subscriber; the other keys update its profile as the upsert body does (`id` is a property of it). */
export type UserSubscriber = { distinct_id: string } & Record<string, unknown>;
/** A child object subscriber; the other keys set its properties. */
export type ObjectSubscriber = { id: string; object_type: string } & Record<string, unknown>;
export type Subscriber = string | UserSubscriber | ObjectSubscriber;

/**
 * A subscriber: a distinct_id, a user or a child object, told apart by shape; each
 * refusal names the subscriber itself, or its distinct_id. With `profiles`, the other
 * keys of a user or object are checked as the upsert body checks them (a subscribe
 * writes them to its profile); without, they are ignored (an unsubscribe).
 */
function subscriber(profiles: boolean): TUnsafe<Subscriber> {
  const channels = profiles ? PROFILE_CHANNEL_PROPERTIES : {};
  const user = {
    type: 'object',
    properties: { ...channels, distinct_id: nonBlank('must be a non-empty string') },
    if: { required: ['object_type'] },
    then: refused('must be either a user (distinct_id) or an object (id, object_type), not both'),
    description: profiles ? 'A user; other keys update its profile as the upsert body does' : 'A user',
  };
  const child = {
    type: 'object',
    properties: channels,
    if: { required: ['id', 'object_type'], properties: { id: NON_BLANK, object_type: NON_BLANK } },
    else: refused('an object needs a non-empty id and object_type'),
    description: profiles ? 'A child object; other keys set its properties' : 'A child object',
  };
  return Type.Unsafe<Subscriber>({
    if: { type: 'string' },
    then: nonBlank(ANY_FORM, 'A distinct_id'),
    else: { if: { type: 'object', required: ['distinct_id'] }, then: user, else: { if: { type: 'object' }, then: child, else: refused(ANY_FORM) } },
  });
}

const SubscriptionRecipient = audienceSchemas.named('SubscriptionRecipient', subscriber(true));
const SubscriptionRecipientRef = audienceSchemas.named('SubscriptionRecipientRef', subscriber(false));

const recipients = (profiles: boolean, description: string) =>
  Type.Array(profiles ? SubscriptionRecipient : SubscriptionRecipientRef, {
    minItems: 1,
    maxItems: MAX_SUBSCRIBERS_PER_CALL,
    'x-message': `must be an array of 1 to ${MAX_SUBSCRIBERS_PER_CALL} recipients`,
    description,
  });

export const SubscriptionAddSchema = audienceSchemas.named(
  'SubscriptionAdd',
  Type.Object(
    {
      recipients: recipients(true, 'Up to 100 subscribers; one named twice is subscribed once, with what its last mention carried'),
      properties: Nullable(Type.Unsafe<Record<string, unknown>>({ type: 'object', description: 'The properties of the relation (`$recipient.subscription.<key>`); subscribing again replaces them' })),
    },
    {
      'x-message': 'must be a JSON object',
      'x-required-message': `must be an array of 1 to ${MAX_SUBSCRIBERS_PER_CALL} recipients`,
      description: 'Up to 100 subscribers and the properties of the relation (`$recipient.subscription.<key>`)',
    },
  ),
);
export type SubscriptionAdd = Static<typeof SubscriptionAddSchema>;

/** What is not an object: the delete takes its subscribers from the `recipients` query then. */
type NotAnObject = string | number | boolean | null | undefined | unknown[];

/** The delete's body is optional: an object names the subscribers in `recipients`; anything else leaves them to the query. */
export const SubscriptionRemoveSchema = audienceSchemas.named(
  'SubscriptionRemove',
  Type.Unsafe<{ recipients?: Subscriber[] } | NotAnObject>({
    if: { type: 'object' },
    then: Type.Object({ recipients: Type.Optional(recipients(false, 'Distinct_ids, users or objects {id, object_type}; when absent, the `recipients` query names them')) }),
    description: 'The subscribers to remove, when the `recipients` query does not name them',
  }),
);
export type SubscriptionRemove = Static<typeof SubscriptionRemoveSchema>;

export const SUBSCRIPTION_BODIES = {
  add: requiredBodyParser(SubscriptionAddSchema),
  remove: audienceSchemas.parser(SubscriptionRemoveSchema),
} as const;
