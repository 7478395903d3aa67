import { Static, Type } from '@sinclair/typebox';
import { OneOrMany } from '@herald/contracts';
import { audienceSchemas, requiredBodyParser } from '../http/audience-schemas';

/**
 * The bodies of the profile routes of users, objects and a user's tenant profile
 * (reference `POST` / `PATCH /v1/user/{id}/`, `/v1/object/{type}/{id}/`,
 * `/v1/user/{id}/tenant/{tenant_id}/`), each one schema (docs/architecture.md,
 * "Contracts"). What depends on the stored profile (an increment needs a numeric
 * property) and the change count of a request stay code in profile-document.ts.
 */

/** The channels a profile holds, stored without their `$`. */
export const PROFILE_CHANNELS = ['email', 'sms', 'whatsapp', 'inbox', 'androidpush', 'iospush', 'webpush', 'slack', 'ms_teams'] as const;
/** `$email`, `$sms`, `$whatsapp`, `$inbox`: addresses. */
const ChannelAddresses = audienceSchemas.named(
  'ProfileChannelAddresses',
  OneOrMany(Type.String({ minLength: 1, 'x-message': 'must be a non-empty string' })),
);
/** Push channels, Slack and MS Teams: a token or an identity object. */
const ChannelIdentities = audienceSchemas.named(
  'ProfileChannelIdentities',
  OneOrMany(Type.Unsafe<string | Record<string, unknown>>({ type: ['string', 'object'], minLength: 1, 'x-message': 'must be a string or an object' })),
);

/** `$email`, `$sms`, ... each a value or a list of them: what the upsert, `$set` and `$append` take for a channel. */
export const PROFILE_CHANNEL_PROPERTIES = {
  $email: Type.Optional(ChannelAddresses),
  $sms: Type.Optional(ChannelAddresses),
  $whatsapp: Type.Optional(ChannelAddresses),
  $inbox: Type.Optional(ChannelAddresses),
  $androidpush: Type.Optional(ChannelIdentities),
  $iospush: Type.Optional(ChannelIdentities),
  $webpush: Type.Optional(ChannelIdentities),
  $slack: Type.Optional(ChannelIdentities),
  $ms_teams: Type.Optional(ChannelIdentities),
} satisfies Record<`$${(typeof PROFILE_CHANNELS)[number]}`, unknown>;

const channelsObject = (options: Record<string, unknown>) => Type.Object(PROFILE_CHANNEL_PROPERTIES, options);
/** Channel keys checked, any other key a property (typed as such): the upsert body, `$set` and `$append`. */
function ProfileFields(options: Record<string, unknown>) {
  return Type.Unsafe<Static<ReturnType<typeof channelsObject>> & Record<string, unknown>>(channelsObject(options));
}

const CHANNELS_AND_PROPERTIES =
  '`$email`, `$sms`, `$whatsapp` and `$inbox` take non-empty strings, `$androidpush`, `$iospush`, `$webpush`, `$slack` and `$ms_teams` strings or objects, each a value or a list; any other key (`$preferred_language` and `$timezone` too) is a property, stored as sent';

/** The upsert body: `$<channel>` keys append channel values, every other key sets a property. */
export const ProfileUpsertSchema = audienceSchemas.named(
  'ProfileUpsert',
  ProfileFields({
    'x-message': 'must be a JSON object',
    description: `Properties and channels: ${CHANNELS_AND_PROPERTIES}. At most 1,000 keys per request`,
  }),
);
export type ProfileUpsert = Static<typeof ProfileUpsertSchema>;

/** The operation names, in the wording of the error naming another. */
export const PROFILE_OPERATIONS = ['$set', '$set_once', '$unset', '$append', '$remove', '$increment', '$add'] as const;

const anyKeys = (description: string) => Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', description }));
const numbers = (description: string) =>
  Type.Optional(Type.Unsafe<Record<string, number>>({ type: 'object', additionalProperties: { type: 'number', 'x-message': 'must be a number added to a numeric property' }, description }));

/**
 * One operation object of a profile edit. Its keys apply in the order sent; `$set` and
 * `$append` check channel values as the upsert does, the others take any keys.
 */
export const ProfileOperationSchema = audienceSchemas.named(
  'ProfileOperation',
  Type.Object(
    {
      $set: Type.Optional(ProfileFields({ description: `Set properties, or replace a channel's values: ${CHANNELS_AND_PROPERTIES}` })),
      $set_once: anyKeys('Set properties that are not set yet'),
      $unset: Type.Optional(
        // Every name a string, reported at the list (as the hand reader did), not at the item.
        Type.Unsafe<string[]>({
          type: 'array',
          not: { contains: { not: { type: 'string' } } },
          'x-message': 'must be an array of property or channel names',
          description: 'Properties, or `$<channel>` keys, to remove entirely',
        }),
      ),
      $append: Type.Optional(ProfileFields({ description: 'Add channel values (each once), or append to list properties' })),
      $remove: anyKeys('Remove channel values, or values from list properties'),
      $increment: numbers('Numbers added to numeric properties (absent counts as 0)'),
      $add: numbers('`$increment` as the SDKs spell it'),
    },
    { additionalProperties: Type.Unsafe({ not: {}, 'x-message': `must be one of ${PROFILE_OPERATIONS.join(', ')}` }) },
  ),
);
export type ProfileOperation = Static<typeof ProfileOperationSchema>;

/** The edit body: operation objects applied in order, all or nothing. */
export const ProfileOperationsSchema = audienceSchemas.named(
  'ProfileOperations',
  Type.Object(
    { operations: Type.Array(ProfileOperationSchema, { minItems: 1, 'x-message': 'must be a non-empty array' }) },
    {
      'x-message': 'must be a JSON object',
      'x-required-message': 'must be a non-empty array',
      description: 'Operations applied in order, all or nothing; at most 1,000 changes (keys of the operations, `$unset` names) per request',
    },
  ),
);
export type ProfileOperations = Static<typeof ProfileOperationsSchema>;

export const PROFILE_BODIES = {
  upsert: requiredBodyParser(ProfileUpsertSchema),
  operations: requiredBodyParser(ProfileOperationsSchema),
  /** One operation on its own, for the identity events ingest-api accepted (checked again before they apply). */
  operation: audienceSchemas.parser(ProfileOperationSchema),
} as const;
