import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MessageBus } from '@herald/bus';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, DEFINITION_CHANGED_TYPE, DefinitionChanged, Envelope, TOPICS, parseCredentialsChanged, parseDefinitionChanged } from '@herald/contracts';
import { BusMessageContext, CLOCK, Clock, ConsumerOf, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS, acknowledgeCredentials } from '@herald/runtime';
import { InboxApiKeys } from './inbox-api-keys';
import { LiveTranslations } from './live-translations';
import { WorkspaceKeySecrets } from './workspace-key-secrets';
import { WorkspaceVendors } from './workspace-vendors';

const CREDENTIALS_CHANGES = { type: CREDENTIALS_CHANGED_TYPE, parsePayload: parseCredentialsChanged };
const DEFINITION_CHANGES = { type: DEFINITION_CHANGED_TYPE, parsePayload: parseDefinitionChanged };

/** What the dispatchers' read models take from management-api's announcements: one consumer group each. */
@Controller()
export class ReadModelConsumers {
  constructor(
    private readonly apiKeys: InboxApiKeys,
    private readonly workspaceKeys: WorkspaceKeySecrets,
    private readonly translations: LiveTranslations,
    private readonly vendors: WorkspaceVendors,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @ConsumerOf({ groupId: 'herald.dispatch.credentials', topics: [TOPICS.credentialsChanged.name], messages: CREDENTIALS_CHANGES })
  async apiKeyChanged(@Payload() change: CredentialsChanged, @Ctx() context: BusMessageContext<Envelope<CredentialsChanged>>): Promise<void> {
    await this.apiKeys.apply(change);
    // Management's key routes answer once the inbox API, too, takes (or refuses) the key.
    acknowledgeCredentials(this.bus, this.clock, this.logger, 'channel-dispatchers', context.envelope);
  }

  @ConsumerOf({ groupId: 'herald.dispatch.workspace-keys', topics: [TOPICS.credentialsChanged.name], messages: CREDENTIALS_CHANGES })
  async workspaceKeyChanged(@Payload() change: CredentialsChanged): Promise<void> {
    await this.workspaceKeys.apply(change);
  }

  @ConsumerOf({ groupId: 'herald.dispatch.translations', topics: [TOPICS.definitionChanged.name], messages: DEFINITION_CHANGES })
  async translationChanged(@Payload() change: DefinitionChanged): Promise<void> {
    if (change.kind === 'translation') await this.translations.apply(change);
  }

  @ConsumerOf({ groupId: 'herald.dispatch.definitions', topics: [TOPICS.definitionChanged.name], messages: DEFINITION_CHANGES })
  async vendorChanged(@Payload() change: DefinitionChanged): Promise<void> {
    if (change.kind === 'vendor') await this.vendors.apply(change);
  }
}
