import { MigrationClass } from '@herald/database';
import { outboxMigrations } from '@herald/event-store';
import { readOnlyApiKeysMigration } from '@herald/runtime';
import { CreateDispatchTables1763900000000 } from './1763900000000-create-dispatch-tables';
import { AddInboxEngagement1764100000000 } from './1764100000000-add-inbox-engagement';
import { AddDeliveryLeases1764300000000 } from './1764300000000-add-delivery-leases';
import { AddBrowserKeys1764500000000 } from './1764500000000-add-browser-keys';
import { AddQueuedClaims1764700000000 } from './1764700000000-add-queued-claims';
import { AddTranslations1764710000000 } from './1764710000000-add-translations';
import { AddInboxTenant1764720000000 } from './1764720000000-add-inbox-tenant';
import { AddInboxBadgeResets1764730000000 } from './1764730000000-add-inbox-badge-resets';
import { AddVendorCallbacks1764742000000 } from './1764742000000-add-vendor-callbacks';
import { AddInboxExtras1764750000000 } from './1764750000000-add-inbox-extras';
import { AddWorkspaceKeys1764760000000 } from './1764760000000-add-workspace-keys';

/** Migrations of the `dispatch` schema, oldest first. */
export const DISPATCH_MIGRATIONS: MigrationClass[] = [
  ...outboxMigrations('dispatch'),
  CreateDispatchTables1763900000000,
  AddInboxEngagement1764100000000,
  AddDeliveryLeases1764300000000,
  AddBrowserKeys1764500000000,
  AddQueuedClaims1764700000000,
  AddTranslations1764710000000,
  AddInboxTenant1764720000000,
  AddInboxBadgeResets1764730000000,
  AddVendorCallbacks1764742000000,
  AddInboxExtras1764750000000,
  AddWorkspaceKeys1764760000000,
  readOnlyApiKeysMigration('dispatch', 1765000000000),
];
