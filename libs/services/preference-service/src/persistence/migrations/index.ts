import { MigrationClass } from '@herald/database';
import { outboxMigrations } from '@herald/event-store';
import { browserKeysMigration, readOnlyApiKeysMigration } from '@herald/runtime';
import { CreateAudienceTables1763900000000 } from './1763900000000-create-audience-tables';
import { AddPageIds1764000000000 } from './1764000000000-add-page-ids';
import { ListVersions1764300000000 } from './1764300000000-list-versions';
import { CategoryTranslations1764700000000 } from './1764700000000-category-translations';

/** Migrations of the `audience` schema, oldest first. The outbox carries every change to `notify.audience.changed.v1`. */
export const AUDIENCE_MIGRATIONS: MigrationClass[] = [...outboxMigrations('audience'), CreateAudienceTables1763900000000, AddPageIds1764000000000, ListVersions1764300000000, browserKeysMigration('audience', 1764600000000), CategoryTranslations1764700000000, readOnlyApiKeysMigration('audience', 1765000000000)];
