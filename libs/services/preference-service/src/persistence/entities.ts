import { EntitySchema } from 'typeorm';
import { SubscriptionEntity } from '../subscriptions/subscription.repository';
import { TENANT_ENTITIES } from '../tenants/tenant.repository';

/**
 * The `audience` tables TypeORM maps for preference-service's repositories (the mapping only:
 * the migrations make the tables). Each repository's entity schemas are added here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- EntitySchema's parameter differs per table
export const AUDIENCE_ENTITIES: EntitySchema<any>[] = [
  SubscriptionEntity,
  ...TENANT_ENTITIES,
];
