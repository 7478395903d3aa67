import { EventSchemaLinkEntity, LivePayloadSchemaEntity, PayloadSchemaVersionEntity } from '../read-models/payload-schema.repository';
import { AnnouncedWorkflowEntity } from '../read-models/workflow.repository';

/**
 * The tables ingest-api reads and writes through TypeORM's repositories.
 * Registered with its DataSource for their column mappings only: the migrations create the tables.
 */
export const INGEST_ENTITIES = [AnnouncedWorkflowEntity, LivePayloadSchemaEntity, PayloadSchemaVersionEntity, EventSchemaLinkEntity];
