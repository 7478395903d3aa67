import { Static, Type } from '@sinclair/typebox';
import { DefaultPreference, PREFERENCE_CHANNELS, PreferenceChannel } from '@herald/audience';
import { audienceSchemas, requiredBodyParser } from '../http/audience-schemas';

/**
 * The bodies of the tenant and brand routes (reference `/v1/tenant/{tenant_id}/`, its
 * category defaults, and `/v1/brand/{brand_id}/`), each one schema (docs/architecture.md,
 * "Contracts"). Merging an update into what is stored stays code in the tenant repository.
 */

/** A channel name; anything else, a string or not, is `must be one of email, sms, ...`. */
const Channel = Type.Unsafe<PreferenceChannel>({ enum: [...PREFERENCE_CHANNELS] });
/** A list of channels, or null; absent keeps what is stored. */
const channels = (description: string) =>
  Type.Optional(Type.Unsafe<PreferenceChannel[] | null>({ type: ['array', 'null'], items: Channel, 'x-message': 'must be an array of channels or null', description }));

const TENANT_FIELDS = {
  tenant_name: Type.Optional(Type.String({ description: 'Absent: the tenant_id when created, else unchanged' })),
  blocked_channels: channels('Channels no notification of the tenant goes out on; absent or null keeps them as they are (none when created)'),
};

/** The tenant: `blocked_channels` apart, every key (`logo`, `primary_color`, `properties`, ...) is merged into the stored document. */
export const TenantUpsertSchema = audienceSchemas.named(
  'TenantUpsert',
  Type.Unsafe<Static<ReturnType<typeof tenantObject>> & Record<string, unknown>>(
    tenantObject({ 'x-message': 'must be a JSON object', description: 'The tenant; keys other than blocked_channels are merged into what is stored' }),
  ),
);
function tenantObject(options: Record<string, unknown>) {
  return Type.Object(TENANT_FIELDS, options);
}
export type TenantUpsert = Static<typeof TenantUpsertSchema>;

/** A tenant under the older brand API's names: `brand_name` is `tenant_name`; a `brand_id` in the body is dropped (the path names it). */
export const BrandUpsertSchema = audienceSchemas.named(
  'BrandUpsert',
  Type.Unsafe<Static<ReturnType<typeof brandObject>> & Record<string, unknown>>(
    brandObject({ 'x-message': 'must be a JSON object', description: 'The brand; keys other than brand_id, brand_name and blocked_channels are merged into what is stored' }),
  ),
);
function brandObject(options: Record<string, unknown>) {
  return Type.Object({ brand_name: Type.Optional(Type.String({ description: "The tenant's name; wins over tenant_name" })), ...TENANT_FIELDS }, options);
}
export type BrandUpsert = Static<typeof BrandUpsertSchema>;

export const TENANT_CATEGORY_PREFERENCES = ['opt_in', 'opt_out', 'cant_unsubscribe'] as const satisfies readonly DefaultPreference[];

/** A tenant's default for one category; absent fields keep their value. */
export const TenantCategoryDefaultUpdateSchema = audienceSchemas.named(
  'TenantCategoryDefaultUpdate',
  Type.Object(
    {
      // No `type`: a value of another type is `must be one of ...` too.
      preference: Type.Optional(Type.Unsafe<DefaultPreference>({ enum: [...TENANT_CATEGORY_PREFERENCES] })),
      visible_to_subscriber: Type.Optional(Type.Boolean({ 'x-message': 'must be a boolean' })),
      mandatory_channels: channels("With cant_unsubscribe, the channels users of the tenant cannot opt out of; null: the category's own"),
      opt_in_channels: channels("Channels opted in by default; null: the category's own"),
    },
    { 'x-message': 'must be a JSON object', description: 'Fields absent keep their value' },
  ),
);
export type TenantCategoryDefaultUpdate = Static<typeof TenantCategoryDefaultUpdateSchema>;

export const TENANT_BODIES = {
  upsert: requiredBodyParser(TenantUpsertSchema),
  brandUpsert: requiredBodyParser(BrandUpsertSchema),
  categoryDefault: requiredBodyParser(TenantCategoryDefaultUpdateSchema),
} as const;
