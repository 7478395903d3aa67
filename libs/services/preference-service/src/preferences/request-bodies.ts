import { Static, Type } from '@sinclair/typebox';
import { CategoryChoice, PREFERENCE_CHANNELS } from '@herald/audience';
import { FormattedString, Nullable, StringEnum } from '@herald/contracts';
import { audienceSchemas } from '../http/audience-schemas';
import type { FullUpdate } from './preferences';

/**
 * The request bodies of the preference routes, each one schema (docs/architecture.md,
 * "Contracts"): `/v1/{user|object}/.../preference/...`, the browser SDK's
 * `/v2/subscriber/{distinct_id}/...` (the same bodies) and the bulk user routes. The
 * handler's `@ValidBody` validates with it and audience-openapi.ts shows it. What needs
 * the category (its digest options, mandatory channels, editable properties) stays in
 * `applyCategoryUpdate`, after the parse.
 */

const WEEKDAYS = ['su', 'mo', 'tu', 'we', 'th', 'fr', 'sa'] as const;
export const MAX_BULK_USERS = 1000;

const channel = StringEnum(PREFERENCE_CHANNELS, { 'x-message': `must be one of ${PREFERENCE_CHANNELS.join(', ')}` });
const channelList = (description: string) => Nullable(Type.Array(channel, { 'x-message': 'must be an array of channels', description }));

const DigestScheduleChoiceSchema = Type.Object(
  {
    id: Type.String({ description: "One of the category's digest schedule options" }),
    time: Type.Optional(Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', 'x-message': 'must be a 24-hour time HH:MM' })),
    dtstart: Type.Optional(FormattedString('date_time', { 'x-message': 'must be an ISO 8601 date-time' })),
    // Each day one of WEEKDAYS, reported on the list itself as the hand reader did (`digest_schedule.weekdays`).
    weekdays: Type.Optional(
      Type.Unsafe<Array<(typeof WEEKDAYS)[number]>>({
        type: 'array',
        not: { contains: { not: { enum: [...WEEKDAYS] } } },
        'x-message': `must be an array of ${WEEKDAYS.join(', ')}`,
        description: `Days of the week, each one of ${WEEKDAYS.join(', ')}`,
      }),
    ),
    monthdays: Type.Optional(
      Type.Array(
        Type.Object(
          {
            pos: Type.Integer({ minimum: -31, maximum: 31, 'x-message': 'must be an integer from -31 to 31' }),
            day: Nullable(StringEnum(WEEKDAYS, { 'x-message': `must be one of ${WEEKDAYS.join(', ')} or null` })),
          },
          { 'x-message': 'must be an object {pos, day}', 'x-required-message': 'must be an integer from -31 to 31' },
        ),
        { 'x-message': 'must be an array of {pos, day}' },
      ),
    ),
  },
  { 'x-message': 'must be an object or null', description: "One of the category's digest schedule options; null falls back to the tenant's or the category's default" },
);

/** Interface 4.1: a recipient's choice for one category; absent fields keep their value. */
export const CategoryPreferenceUpdateSchema = audienceSchemas.named(
  'CategoryPreferenceUpdate',
  Type.Object(
    {
      preference: Type.Optional(StringEnum(['opt_in', 'opt_out'] as const, { 'x-message': 'must be opt_in or opt_out' })),
      opt_in_channels: channelList('Channels opted in (each leaves opt_out_channels); null as absent'),
      opt_out_channels: channelList('Channels opted out (each leaves opt_in_channels); a mandatory channel cannot be; null as absent'),
      digest_schedule: Nullable(DigestScheduleChoiceSchema),
      properties: Type.Optional(
        Type.Array(Type.Object({ key: Type.String(), value: Type.Unknown() }, { 'x-message': 'must be an object {key, value}' }), {
          'x-message': 'must be an array of {key, value}',
          description: "Overrides of the category's editable properties, merged by key",
        }),
      ),
    },
    { 'x-message': 'must be a JSON object', description: 'Fields absent keep their value' },
  ),
);
export type CategoryPreferenceUpdate = Static<typeof CategoryPreferenceUpdateSchema>;

const channelPreferences = Type.Array(
  Type.Object({ channel, is_restricted: Type.Boolean({ 'x-message': 'must be a boolean' }) }, { 'x-message': 'must be an object {channel, is_restricted}' }),
  { 'x-message': 'must be an array of {channel, is_restricted}' },
);

/** Interface 4.2: the channels to restrict or unrestrict; the others keep theirs. */
export const ChannelPreferencesUpdateSchema = audienceSchemas.named(
  'ChannelPreferencesUpdate',
  Type.Object(
    { channel_preferences: channelPreferences },
    { 'x-message': 'must be a JSON object', 'x-required-message': 'must be an array of {channel, is_restricted}', description: 'The channels to change' },
  ),
);
export type ChannelPreferencesUpdate = Static<typeof ChannelPreferencesUpdateSchema>;

const CategoryPreferenceOfCategorySchema = Type.Intersect([
  Type.Object(
    { category: Type.String({ minLength: 1, 'x-message': 'must be a non-empty string', description: 'The category slug' }) },
    { 'x-message': 'must be an object', 'x-required-message': 'must be a non-empty string' },
  ),
  CategoryPreferenceUpdateSchema,
]);

/** Reference `PATCH .../preference/`: channel restrictions and category choices at once, all or nothing. */
export const FullPreferenceUpdateSchema = audienceSchemas.named(
  'FullPreferenceUpdate',
  Type.Object(
    {
      channel_preferences: Type.Optional(channelPreferences),
      categories: Type.Optional(Type.Array(CategoryPreferenceOfCategorySchema, { 'x-message': 'must be an array of {category, preference, opt_out_channels, opt_in_channels}' })),
    },
    { 'x-message': 'must be a JSON object', description: 'Either part may be absent' },
  ),
);
export type FullPreferenceUpdate = Static<typeof FullPreferenceUpdateSchema>;

const distinctIdsMessage = `must be an array of 1 to ${MAX_BULK_USERS} distinct_ids`;
const distinctIds = Type.Array(Type.String({ minLength: 1, 'x-message': 'must be a non-empty string' }), {
  minItems: 1,
  maxItems: MAX_BULK_USERS,
  'x-message': distinctIdsMessage,
  description: `1 to ${MAX_BULK_USERS.toLocaleString('en-US')} users; a repeated id counts once`,
});

/** Reference `PATCH /v1/bulk/user/preference/`: one full update for many users. */
export const BulkUserPreferenceUpdateSchema = audienceSchemas.named(
  'BulkUserPreferenceUpdate',
  Type.Intersect([Type.Object({ distinct_ids: distinctIds }, { 'x-message': 'must be a JSON object', 'x-required-message': distinctIdsMessage }), FullPreferenceUpdateSchema], {
    description: `At most ${MAX_BULK_USERS.toLocaleString('en-US')} distinct_ids`,
  }),
);
export type BulkUserPreferenceUpdate = Static<typeof BulkUserPreferenceUpdateSchema>;

/** Reference `PATCH /v1/bulk/user/preference/reset/`: forgets the listed parts for many users. */
export const BulkUserPreferenceResetSchema = audienceSchemas.named(
  'BulkUserPreferenceReset',
  Type.Object(
    {
      distinct_ids: distinctIds,
      reset_channel_preferences: Type.Optional(Type.Boolean({ 'x-message': 'must be a boolean', description: 'Forget the channel restrictions' })),
      reset_categories: Type.Optional(Type.Boolean({ 'x-message': 'must be a boolean', description: 'Forget the category choices' })),
    },
    { 'x-message': 'must be a JSON object', 'x-required-message': distinctIdsMessage, description: `At most ${MAX_BULK_USERS.toLocaleString('en-US')} distinct_ids` },
  ),
);
export type BulkUserPreferenceReset = Static<typeof BulkUserPreferenceResetSchema>;

export const PREFERENCE_BODIES = {
  categoryUpdate: audienceSchemas.parser(CategoryPreferenceUpdateSchema),
  channelsUpdate: audienceSchemas.parser(ChannelPreferencesUpdateSchema),
  fullUpdate: audienceSchemas.parser(FullPreferenceUpdateSchema),
  bulkUpdate: audienceSchemas.parser(BulkUserPreferenceUpdateSchema),
  bulkReset: audienceSchemas.parser(BulkUserPreferenceResetSchema),
} as const;

/** The choice a 4.1 body asks for, as @herald/audience merges it: null lists count as absent, a schedule keeps its known fields (a month day without `day` is any day, null). */
export function categoryChoiceOf(update: CategoryPreferenceUpdate): CategoryChoice {
  const { preference, opt_in_channels, opt_out_channels, digest_schedule, properties } = update;
  return {
    ...(preference === undefined ? {} : { preference }),
    ...(opt_in_channels == null ? {} : { opt_in_channels }),
    ...(opt_out_channels == null ? {} : { opt_out_channels }),
    ...(digest_schedule === undefined ? {} : { digest_schedule: digest_schedule === null ? null : scheduleOf(digest_schedule) }),
    ...(properties === undefined ? {} : { properties: properties.map(({ key, value }) => ({ key, value })) }),
  };
}

function scheduleOf({ id, time, dtstart, weekdays, monthdays }: Static<typeof DigestScheduleChoiceSchema>): CategoryChoice['digest_schedule'] {
  return { id, ...(time === undefined ? {} : { time }), ...(dtstart === undefined ? {} : { dtstart }), ...(weekdays === undefined ? {} : { weekdays }), ...(monthdays === undefined ? {} : { monthdays: monthdays.map(({ pos, day }) => ({ pos, day: day ?? null })) }) };
}

/** A full update's parts: the channel restrictions (null when absent) and each category's choice. */
export function fullUpdateOf(update: FullPreferenceUpdate): FullUpdate {
  return {
    channels: update.channel_preferences ?? null,
    categories: (update.categories ?? []).map((entry) => ({ category: entry.category, choice: categoryChoiceOf(entry) })),
  };
}
