import { DynamicModule, Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { MessageBus } from '@herald/bus';
import { CREDENTIALS_CHANGED_TYPE, TOPICS, parseCredentialsChanged } from '@herald/contracts';
import { HeraldConfig } from '../../config/herald-config';
import { HeraldLogger } from '../../logging/logger';
import { SecretBox } from '../../security/secret-box';
import { ConsumerRegistry } from '../consumer-registry';
import { CLOCK, Clock, HERALD_CONFIG, HERALD_LOGGER, MESSAGE_BUS } from '../tokens';
import { acknowledgeCredentials } from './credentials-acknowledgement';
import { WORKSPACE_CREDENTIALS, WorkspaceAuthGuard } from './workspace-auth.guard';
import { WorkspaceCredentials } from './workspace-credentials';
import { WorkspaceCredentialsRepository } from './workspace-credentials.repository';

export interface WorkspaceAuthOptions {
  readonly service: string;
  /** The service's schema (and DataSource name), which holds `api_keys` and `workspace_keys`. */
  readonly schema: string;
  /** The consumer group feeding this service's credentials read model. */
  readonly groupId: string;
}

/**
 * Feeds the read model from `notify.credentials.changed.v1`, one group per service (its
 * replicas share the table), and acknowledges each applied change on
 * `notify.credentials.applied.v1` (management's key routes wait for it).
 */
@Injectable()
class CredentialsFeed implements OnApplicationBootstrap {
  constructor(
    private readonly consumers: ConsumerRegistry,
    @Inject(WORKSPACE_CREDENTIALS) private readonly credentials: WorkspaceCredentials,
    @Inject('WORKSPACE_AUTH_OPTIONS') private readonly options: WorkspaceAuthOptions,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.credentialsChanged.name], {
      groupId: this.options.groupId,
      type: CREDENTIALS_CHANGED_TYPE,
      parsePayload: parseCredentialsChanged,
      handle: async (change, envelope) => {
        await this.credentials.apply(change);
        acknowledgeCredentials(this.bus, this.clock, this.logger, this.options.service, envelope);
      },
    });
  }
}

/**
 * `{base_url}` authentication for a service: its credentials read model, the feed that
 * keeps it current, and `WorkspaceAuthGuard` for its controllers. Import it in the
 * service module after the service's ServiceDatabaseModule.
 */
@Module({})
export class WorkspaceAuthModule {
  static forService(options: WorkspaceAuthOptions): DynamicModule {
    return {
      module: WorkspaceAuthModule,
      providers: [
        { provide: 'WORKSPACE_AUTH_OPTIONS', useValue: options },
        WorkspaceCredentialsRepository.forSchema(options.schema),
        {
          provide: WORKSPACE_CREDENTIALS,
          inject: [WorkspaceCredentialsRepository, HERALD_CONFIG, HERALD_LOGGER],
          useFactory: (credentials: WorkspaceCredentialsRepository, config: HeraldConfig, logger: HeraldLogger): WorkspaceCredentials => {
            // Workspace secrets arrive sealed by management-api; the same key opens them.
            if (!config.secretsKey) throw new Error(`HERALD_SECRETS_KEY is required by ${options.service} (it verifies workspace-key signatures)`);
            return new WorkspaceCredentials(credentials, new SecretBox(config.secretsKey), logger);
          },
        },
        CredentialsFeed,
        WorkspaceAuthGuard,
      ],
      exports: [WORKSPACE_CREDENTIALS, WorkspaceAuthGuard],
    };
  }
}
