import { LedgeredDeliveryEntity } from '../dispatch/delivery.entity';
import { InboxBadgeResetEntity, InboxMessageEntity } from '../inbox/inbox.entities';
import { AnnouncedApiKeyEntity } from '../read-models/api-key.repository';
import { WorkspaceTranslationsEntity } from '../read-models/translation.repository';
import { AnnouncedVendorEntity } from '../read-models/vendor.repository';
import { AnnouncedWorkspaceKeyEntity } from '../read-models/workspace-key.repository';
import { SuppressedAddressEntity } from '../suppressions/suppression.repository';

/**
 * The tables channel-dispatchers reads and writes through TypeORM's repositories.
 * Registered with its DataSource for their column mappings only: the migrations create the tables.
 */
export const DISPATCH_ENTITIES = [
  SuppressedAddressEntity,
  AnnouncedWorkspaceKeyEntity,
  AnnouncedApiKeyEntity,
  WorkspaceTranslationsEntity,
  AnnouncedVendorEntity,
  LedgeredDeliveryEntity,
  InboxMessageEntity,
  InboxBadgeResetEntity,
];
