import { EntitySchema } from 'typeorm';
import { SubscriptionEntity } from '../subscriptions/subscription.repository';
import { TENANT_ENTITIES } from '../tenants/tenant.repository';
import { CATEGORY_DOCUMENT_ENTITIES } from '../categories/category-document.repository';
import { LIST_VERSION_ENTITIES } from '../lists/list-version.repository';
import { LIST_ENTITIES } from '../lists/list.repository';

/**
 * The `audience` tables TypeORM maps for preference-service's repositories (the mapping only:
 * the migrations make the tables). Each repository's entity schemas are added here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- EntitySchema's parameter differs per table
export const AUDIENCE_ENTITIES: EntitySchema<any>[] = [
  SubscriptionEntity,
  ...TENANT_ENTITIES,
  ...CATEGORY_DOCUMENT_ENTITIES,
  ...LIST_ENTITIES,
  ...LIST_VERSION_ENTITIES,
];
