export { IngestApiModule, ingestApi } from './ingest-api.module';
