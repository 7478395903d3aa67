import { DynamicModule, Module } from '@nestjs/common';
import { HERALD_CONFIG, HeraldConfig, SecretBox, ServiceDatabaseModule, ServiceDefinition } from '@herald/runtime';
import { AudienceAuthGuard } from './auth/audience-auth.guard';
import { AUDIENCE_SECRET_BOX, AudienceCredentials } from './auth/audience-credentials';
import { CategoryReadModel } from './categories/category-read-model';
import { ListStore } from './lists/list-store';
import { ListsController } from './lists/lists.controller';
import { audienceOpenApi } from './openapi/audience-openapi';
import { AudienceOutboxRelay } from './outbox/audience-outbox-relay';
import { AUDIENCE_MIGRATIONS } from './persistence/migrations';
import { PreferenceStore } from './preferences/preference-store';
import { ObjectPreferencesController, UserPreferencesController } from './preferences/preferences.controllers';
import { InlineProfileConsumer } from './profiles/inline-profile.consumer';
import { ObjectsController } from './profiles/objects.controller';
import { ProfileStore } from './profiles/profile-store';
import { UsersController } from './profiles/users.controller';
import { TenantStore } from './tenants/tenant-store';
import { TenantsController } from './tenants/tenants.controller';

/** The audience: users, objects, lists, tenants, categories and preferences. */
@Module({})
export class PreferenceServiceModule {
  static register(): DynamicModule {
    return {
      module: PreferenceServiceModule,
      imports: [ServiceDatabaseModule.forService({ service: 'preference-service', schema: 'audience', migrations: AUDIENCE_MIGRATIONS })],
      // Preference routes first: they are more specific than the profile routes they extend.
      controllers: [ObjectPreferencesController, UserPreferencesController, ObjectsController, UsersController, ListsController, TenantsController],
      providers: [
        AudienceCredentials,
        AudienceAuthGuard,
        CategoryReadModel,
        ProfileStore,
        ListStore,
        TenantStore,
        PreferenceStore,
        InlineProfileConsumer,
        AudienceOutboxRelay,
        {
          provide: AUDIENCE_SECRET_BOX,
          inject: [HERALD_CONFIG],
          useFactory: (config: HeraldConfig): SecretBox => {
            // Workspace secrets arrive sealed by management-api; the same key opens them.
            if (!config.secretsKey) throw new Error('HERALD_SECRETS_KEY is required by preference-service (it verifies workspace-key signatures)');
            return new SecretBox(config.secretsKey);
          },
        },
      ],
    };
  }
}

export const preferenceService: ServiceDefinition = {
  name: 'preference-service',
  api: 'public',
  module: () => PreferenceServiceModule.register(),
  openApi: audienceOpenApi,
};
