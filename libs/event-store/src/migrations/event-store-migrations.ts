import { MigrationClass } from '@herald/database';
import { eventStoreTables } from '../event-store-tables';
import { lostRacesRefusalMigration } from './lost-races-refusal.migration';
import { outboxMigration } from './outbox.migration';
import { outboxParkingMigration } from './outbox-parking.migration';
import { outboxSharingMigration } from './outbox-sharing.migration';
import { outboxWakeOriginMigration } from './outbox-wake-origin.migration';
import { streamEventsMigration } from './stream-events.migration';
import { streamEventsWithoutGlobalPositionMigration } from './stream-events-without-global-position.migration';
import { streamSnapshotsMigration } from './stream-snapshots.migration';
import { timersClaimOrderMigration } from './timers-claim-order.migration';
import { timersMigration } from './timers.migration';
import { timersWakeMigration } from './timers-wake.migration';

/**
 * The event store's migrations for one schema, oldest first. A service lists them
 * among its own migrations (names are unique and carry the timestamp TypeORM orders by).
 */
export function eventStoreMigrations(schema: string): MigrationClass[] {
  const tables = eventStoreTables(schema);
  return [
    streamEventsMigration(tables),
    outboxMigration(tables),
    timersMigration(tables),
    streamSnapshotsMigration(tables),
    outboxParkingMigration(tables),
    outboxSharingMigration(tables),
    timersWakeMigration(tables),
    timersClaimOrderMigration(tables),
    streamEventsWithoutGlobalPositionMigration(tables),
    outboxWakeOriginMigration(tables),
    lostRacesRefusalMigration(tables),
  ];
}

/** Only the outbox, for a service that publishes its changes but keeps no event streams. */
export function outboxMigrations(schema: string): MigrationClass[] {
  const tables = eventStoreTables(schema);
  return [outboxMigration(tables), outboxParkingMigration(tables), outboxSharingMigration(tables), outboxWakeOriginMigration(tables)];
}
