import { channelView } from './profile-document';
import { StoredProfile } from './profile-changes';

export function userView(distinctId: string, profile: StoredProfile): Record<string, unknown> {
  return {
    distinct_id: distinctId,
    properties: profile.properties,
    created_at: profile.created_at.toISOString(),
    updated_at: profile.updated_at.toISOString(),
    ...channelView(profile.channels),
  };
}

export function objectView(objectType: string, id: string, profile: StoredProfile, subscriptionsCount: number): Record<string, unknown> {
  return {
    object_type: objectType,
    id,
    subscriptions_count: subscriptionsCount,
    properties: profile.properties,
    created_at: profile.created_at.toISOString(),
    updated_at: profile.updated_at.toISOString(),
    ...channelView(profile.channels),
  };
}

/** A user's profile in one tenant: what was stored for the tenant alone, which runs carrying that tenant_id read over the global profile. */
export function userInTenantView(distinctId: string, tenantId: string, profile: StoredProfile): Record<string, unknown> {
  return { ...userView(distinctId, profile), tenant_id: tenantId };
}
