export { IngestApiModule, ingestApi } from './ingest-api.module';
export * from './validation';
