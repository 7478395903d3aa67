import { DynamicModule, Module } from '@nestjs/common';
import { ServiceDatabaseModule, ServiceDefinition } from '@herald/runtime';
import { AUDIENCE_MIGRATIONS } from './persistence/migrations';

/** The audience: users, objects, lists, tenants, categories and preferences. */
@Module({})
export class PreferenceServiceModule {
  static register(): DynamicModule {
    return {
      module: PreferenceServiceModule,
      imports: [ServiceDatabaseModule.forService({ service: 'preference-service', schema: 'audience', migrations: AUDIENCE_MIGRATIONS })],
    };
  }
}

export const preferenceService: ServiceDefinition = {
  name: 'preference-service',
  api: 'public',
  module: () => PreferenceServiceModule.register(),
};
