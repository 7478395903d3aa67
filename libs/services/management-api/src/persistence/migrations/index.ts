import { MigrationClass } from '@herald/database';
import { outboxMigrations } from '@herald/event-store';
import { CreateAccounts1763700000000 } from './1763700000000-create-accounts';

/** Oldest first. The outbox carries management's changes to the other services. */
export const MANAGEMENT_MIGRATIONS: MigrationClass[] = [CreateAccounts1763700000000, ...outboxMigrations('management')];
