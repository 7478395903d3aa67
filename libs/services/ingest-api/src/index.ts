export { IngestApiModule, ingestApi } from './ingest-api.module';
export * from './validation';
export { MAX_INGEST_BODY_BYTES } from './http/request-body';
export { INGRESS_SIGNATURE_HEADER, INGRESS_WORKSPACE_KEY_HEADER, signIngressMessage } from './ingress/ingress-signature';
