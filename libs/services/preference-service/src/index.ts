export { PreferenceServiceModule, preferenceService } from './preference-service.module';
