import { Controller, DynamicModule, Inject, Module, Type } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MessageBus } from '@herald/bus';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, Envelope, TOPICS, parseCredentialsChanged } from '@herald/contracts';
import { HeraldConfig } from '../../config/herald-config';
import { HeraldLogger } from '../../logging/logger';
import { SecretBox } from '../../security/secret-box';
import { BusMessageContext, ConsumerOf } from '../bus-transport/consumer-of';
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
 * The feed of the read model for one service's group: `notify.credentials.changed.v1`,
 * one group per service (its replicas share the table), each applied change acknowledged
 * on `notify.credentials.applied.v1` (management's key routes wait for it). A controller
 * class per group, built when the module is: `@ConsumerOf` takes its group when the
 * class is declared, and the group is the module's option.
 */
function credentialsFeedOf(groupId: string): Type {
  @Controller()
  class CredentialsFeed {
    constructor(
      @Inject(WORKSPACE_CREDENTIALS) private readonly credentials: WorkspaceCredentials,
      @Inject('WORKSPACE_AUTH_OPTIONS') private readonly options: WorkspaceAuthOptions,
      @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
      @Inject(CLOCK) private readonly clock: Clock,
      @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    ) {}

    @ConsumerOf({ groupId, topics: [TOPICS.credentialsChanged.name], messages: { type: CREDENTIALS_CHANGED_TYPE, parsePayload: parseCredentialsChanged } })
    async apply(@Payload() change: CredentialsChanged, @Ctx() context: BusMessageContext<Envelope<CredentialsChanged>>): Promise<void> {
      await this.credentials.apply(change);
      acknowledgeCredentials(this.bus, this.clock, this.logger, this.options.service, context.envelope);
    }
  }
  return CredentialsFeed;
}

/**
 * `{base_url}` authentication for a service: its credentials read model, the feed that
 * keeps it current (a `@ConsumerOf` controller of the module), and `WorkspaceAuthGuard`
 * for its controllers. Import it in the
 * service module after the service's ServiceDatabaseModule.
 */
@Module({})
export class WorkspaceAuthModule {
  static forService(options: WorkspaceAuthOptions): DynamicModule {
    return {
      module: WorkspaceAuthModule,
      controllers: [credentialsFeedOf(options.groupId)],
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
        WorkspaceAuthGuard,
      ],
      exports: [WORKSPACE_CREDENTIALS, WorkspaceAuthGuard],
    };
  }
}
