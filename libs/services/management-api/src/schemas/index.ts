import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { CreateSchemas1763700900000 } from './migrations/1763700900000-create-schemas';
import { SchemaEntity, SchemaRepository, SchemaVersionEntity } from './schema.repository';
import { SchemasController } from './schemas.controller';

/** JSON Schemas of trigger data (`/v1/{workspace}/schema/...`). */
export const SCHEMA_CONTROLLERS: Type[] = [SchemasController];
export const SCHEMA_PROVIDERS: Provider[] = [SchemaRepository];
export const SCHEMA_ENTITIES = [SchemaEntity, SchemaVersionEntity];
export const SCHEMA_MIGRATIONS: MigrationClass[] = [CreateSchemas1763700900000];
