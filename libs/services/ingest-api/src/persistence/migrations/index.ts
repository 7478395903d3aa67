import { MigrationClass } from '@herald/database';
import { browserKeysMigration, readOnlyApiKeysMigration } from '@herald/runtime';
import { CreateIngestTables1763800000000 } from './1763800000000-create-ingest-tables';
import { IdempotencyForBroadcasts1764200000000 } from './1764200000000-idempotency-for-broadcasts';
import { SignedRequestReplays1764400000000 } from './1764400000000-signed-request-replays';
import { PayloadSchemas1764600000000 } from './1764600000000-payload-schemas';
import { EventSchemaLinks1764610000000 } from './1764610000000-event-schema-links';

/** Migrations of the `ingest` schema, oldest first. */
export const INGEST_MIGRATIONS: MigrationClass[] = [CreateIngestTables1763800000000, IdempotencyForBroadcasts1764200000000, SignedRequestReplays1764400000000, PayloadSchemas1764600000000,
  EventSchemaLinks1764610000000,
  browserKeysMigration('ingest', 1764800000000),
  readOnlyApiKeysMigration('ingest', 1765000000000),
];
