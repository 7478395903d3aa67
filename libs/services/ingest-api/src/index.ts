export { IngestApiModule, ingestApi } from './ingest-api.module';
export * from './validation';
export { MAX_INGEST_BODY_BYTES } from './http/request-body';
