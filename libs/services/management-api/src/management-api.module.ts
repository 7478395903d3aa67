import { DynamicModule, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { HERALD_CONFIG, HeraldConfig, ServiceDatabaseModule, ServiceDefinition } from '@herald/runtime';
import { AccountRepository } from './accounts/account.repository';
import { BOOTSTRAP_OUTPUT, BootstrapAccount } from './accounts/bootstrap-account';
import { SECRETS_KEY } from './accounts/secrets-key';
import { ServiceTokenGuard } from './auth/service-token.guard';
import { MANAGEMENT_ENTITIES } from './persistence/entities';
import { MANAGEMENT_MIGRATIONS } from './persistence/migrations';
import { ApiKeyExpiry } from './api-keys/api-key-expiry';
import { ApiKeyRepository } from './api-keys/api-key.repository';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { BROWSER_KEY_CONTROLLERS, BROWSER_KEY_PROVIDERS } from './browser-keys';
import { managementOpenApi } from './openapi/management-openapi';
import { ManagementOutboxRelay } from './outbox/management-outbox-relay';
import { CONSOLE_CONTROLLERS, CONSOLE_PROVIDERS } from './console';
import { CommitVisibility, CommitVisibilityInterceptor } from './management-events/commit-visibility';
import { CredentialsVisibility, CredentialsVisibilityInterceptor } from './management-events/credentials-visibility';
import { CategoryTranslationRepository, CategoryTranslationsController, PreferenceCategoriesController, PreferenceCategoryRepository } from './preference-categories';
import { EVENT_CONTROLLERS, EVENT_PROVIDERS } from './events';
import { REPLAY_CONTROLLERS, REPLAY_PROVIDERS } from './replays';
import { SCHEMA_CONTROLLERS, SCHEMA_PROVIDERS } from './schemas';
import { STATUS_WEBHOOK_CONTROLLERS, StatusWebhookOptions, statusWebhookProviders } from './status-webhooks';
import { SUPPRESSION_CONTROLLERS, SUPPRESSION_PROVIDERS } from './suppressions';
import { TEMPLATE_CONTROLLERS, TEMPLATE_PROVIDERS } from './templates';
import { TRANSLATION_CONTROLLERS, TRANSLATION_PROVIDERS } from './translations';
import { VENDOR_CONTROLLERS, VENDOR_PROVIDERS } from './vendors';
import { WORKFLOW_CONTROLLERS, WORKFLOW_PROVIDERS } from './workflows';
import { WorkspaceKeyRepository } from './workspace-keys/workspace-key.repository';
import { WorkspaceKeysController } from './workspace-keys/workspace-keys.controller';
import { WorkspaceScope } from './workspaces/workspace-scope';
import { WorkspaceRepository } from './workspaces/workspace.repository';
import { ServiceTokenRepository } from './auth/service-token.repository';
import { WorkspacesController } from './workspaces/workspaces.controller';
import { AuditInterceptor, OPERATOR_CONTROLLERS, OPERATOR_PROVIDERS } from './operators';

/** `{management_url}`: accounts, workspaces, keys, and (later) workflow and template definitions. */
@Module({})
export class ManagementApiModule {
  /** `statusWebhooks`: the sender's timing (tests shorten it). */
  static register(options: { readonly statusWebhooks?: Partial<StatusWebhookOptions> } = {}): DynamicModule {
    return {
      module: ManagementApiModule,
      imports: [
        ServiceDatabaseModule.forService({ service: 'management-api', schema: 'management', migrations: MANAGEMENT_MIGRATIONS, entities: MANAGEMENT_ENTITIES }),
      ],
      controllers: [
        WorkspacesController,
        WorkspaceKeysController,
        ApiKeysController,
        PreferenceCategoriesController,
        CategoryTranslationsController,
        ...TEMPLATE_CONTROLLERS,
        ...VENDOR_CONTROLLERS,
        ...WORKFLOW_CONTROLLERS,
        ...BROWSER_KEY_CONTROLLERS,
        ...SCHEMA_CONTROLLERS,
        ...TRANSLATION_CONTROLLERS,
        ...EVENT_CONTROLLERS,
        ...REPLAY_CONTROLLERS,
        ...CONSOLE_CONTROLLERS,
        ...STATUS_WEBHOOK_CONTROLLERS,
        ...OPERATOR_CONTROLLERS,
        ...SUPPRESSION_CONTROLLERS,
      ],
      providers: [
        ServiceTokenGuard,
        WorkspaceScope,
        AccountRepository,
        WorkspaceRepository,
        ServiceTokenRepository,
        WorkspaceKeyRepository,
        ApiKeyRepository,
        ApiKeyExpiry,
        ManagementOutboxRelay,
        CommitVisibility,
        { provide: APP_INTERCEPTOR, useClass: CommitVisibilityInterceptor },
        // Every change through the API is recorded (audit/audit.interceptor.ts).
        { provide: APP_INTERCEPTOR, useClass: AuditInterceptor },
        ...OPERATOR_PROVIDERS,
        CredentialsVisibility,
        { provide: APP_INTERCEPTOR, useClass: CredentialsVisibilityInterceptor },
        PreferenceCategoryRepository,
        CategoryTranslationRepository,
        ...TEMPLATE_PROVIDERS,
        ...VENDOR_PROVIDERS,
        ...WORKFLOW_PROVIDERS,
        ...BROWSER_KEY_PROVIDERS,
        ...SCHEMA_PROVIDERS,
        ...TRANSLATION_PROVIDERS,
        ...EVENT_PROVIDERS,
        ...REPLAY_PROVIDERS,
        ...CONSOLE_PROVIDERS,
        ...statusWebhookProviders(options.statusWebhooks),
        ...SUPPRESSION_PROVIDERS,
        BootstrapAccount,
        { provide: BOOTSTRAP_OUTPUT, useValue: { write: (text: string) => process.stdout.write(text) } },
        {
          provide: SECRETS_KEY,
          inject: [HERALD_CONFIG],
          useFactory: (config: HeraldConfig): Buffer => {
            if (!config.secretsKey) throw new Error('HERALD_SECRETS_KEY is required by management-api');
            return config.secretsKey;
          },
        },
      ],
    };
  }
}

export const managementApi: ServiceDefinition = {
  name: 'management-api',
  api: 'management',
  module: () => ManagementApiModule.register(),
  openApi: managementOpenApi,
};
