import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AudienceVisibilityModule, BrowserAuthModule, OperatorCors, ServiceDatabaseModule, ServiceDefinition, WorkspaceAuthModule } from '@herald/runtime';
import { BROADCAST_FAN_OUT_OPTIONS, BroadcastFanOut, BroadcastFanOutOptions, DEFAULT_BROADCAST_FAN_OUT_OPTIONS } from './broadcasts/broadcast-fan-out';
import { CategoryChangesConsumer } from './categories/category-changes.consumer';
import { CategoryDocumentRepository } from './categories/category-document.repository';
import { LiveCategories } from './categories/live-categories';
import { CONSOLE_ROUTES } from './http/console-routes';
import { ListRepository } from './lists/list.repository';
import { ListsController } from './lists/lists.controller';
import { audienceOpenApi } from './openapi/audience-openapi';
import { AudienceOutboxRelay } from './outbox/audience-outbox-relay';
import { AudienceWriteVisibilityInterceptor } from './outbox/audience-write-visibility';
import { AUDIENCE_MIGRATIONS } from './persistence/migrations';
import { AUDIENCE_ENTITIES } from './persistence/entities';
import { PreferenceRepository } from './preferences/preference.repository';
import { Preferences } from './preferences/preferences';
import { UserPreferencesAuthGuard, UserPreferencesPreflightController } from './preferences/user-preferences-auth.guard';
import { BulkUserPreferencesController, ObjectPreferencesController, UserPreferencesController } from './preferences/preferences.controllers';
import { SubscriberPreferencesController, SubscriberPreferencesPreflightController } from './preferences/subscriber-preferences.controller';
import { ProfileUpdatesConsumer } from './profiles/profile-updates.consumer';
import { ObjectsController } from './profiles/objects.controller';
import { ProfileRepository } from './profiles/profile.repository';
import { UsersController } from './profiles/users.controller';
import { UserTenantsController } from './profiles/user-tenants.controller';
import { TenantRepository } from './tenants/tenant.repository';
import { TenantListController, TenantsController } from './tenants/tenants.controller';
import { BrandListController, BrandsController } from './tenants/brands.controller';
import { ListVersionRepository } from './lists/list-version.repository';
import { BulkDeleteController, UserListsController, UserMergeController } from './sdk-compat/sdk-compat.controllers';
import { UserMerge } from './sdk-compat/user-merge';
import { UserMergeRepository } from './sdk-compat/user-merge.repository';
import { ObjectSubscriptionsController, UserSubscriptionsController } from './subscriptions/subscriptions.controller';
import { SubscriptionRepository } from './subscriptions/subscription.repository';
import { ProfileListsController } from './profiles/profile-lists.controller';
import { UnsubscribeBodyParser, UnsubscribeController } from './unsubscribe/unsubscribe.controller';

/** The audience: users, objects, lists, tenants, categories and preferences. */
@Module({})
export class PreferenceServiceModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(OperatorCors).forRoutes(...CONSOLE_ROUTES);
  }

  static register(fanOut: Partial<BroadcastFanOutOptions> = {}): DynamicModule {
    return {
      module: PreferenceServiceModule,
      imports: [
        ServiceDatabaseModule.forService({ service: 'preference-service', schema: 'audience', migrations: AUDIENCE_MIGRATIONS, entities: AUDIENCE_ENTITIES }),
        WorkspaceAuthModule.forService({ service: 'preference-service', schema: 'audience', groupId: 'herald.audience.credentials' }),
        BrowserAuthModule.forService({ schema: 'audience', groupId: 'herald.audience.browser-keys' }),
        AudienceVisibilityModule,
      ],
      // Preference and subscription routes first: they are more specific than the profile routes they extend.
      controllers: [
        UserMergeController,
        UserListsController,
        BulkDeleteController,
        ObjectPreferencesController,
        UserPreferencesController,
        UserPreferencesPreflightController,
        SubscriberPreferencesController,
        SubscriberPreferencesPreflightController,
        BulkUserPreferencesController,
        ObjectSubscriptionsController,
        UserSubscriptionsController,
        ProfileListsController,
        UserTenantsController,
        ObjectsController,
        UsersController,
        ListsController,
        TenantListController,
        TenantsController,
        BrandListController,
        BrandsController,
        UnsubscribeController,
        ProfileUpdatesConsumer,
        CategoryChangesConsumer,
        BroadcastFanOut,
      ],
      providers: [
        { provide: BROADCAST_FAN_OUT_OPTIONS, useValue: { ...DEFAULT_BROADCAST_FAN_OUT_OPTIONS, ...fanOut } },
        CategoryDocumentRepository,
        LiveCategories,
        ProfileRepository,
        ListRepository,
        ListVersionRepository,
        UserMerge,
        UserMergeRepository,
        TenantRepository,
        PreferenceRepository,
        Preferences,
        UnsubscribeBodyParser,
        UserPreferencesAuthGuard,
        SubscriptionRepository,
        AudienceOutboxRelay,
        { provide: APP_INTERCEPTOR, useClass: AudienceWriteVisibilityInterceptor },
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
