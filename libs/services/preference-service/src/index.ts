export { PreferenceServiceModule, preferenceService } from './preference-service.module';
/** preference-service's paths of `{base_url}`, to be merged into the `/openapi.json` ingest-api serves on the same port. */
export { audienceOpenApi } from './openapi/audience-openapi';
