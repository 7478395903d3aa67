import { Controller, DynamicModule, Module, Type } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CREDENTIALS_CHANGED_TYPE, CredentialsChanged, TOPICS, parseCredentialsChanged } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { ConsumerOf } from '../bus-transport/consumer-of';
import { HERALD_LOGGER } from '../tokens';
import { BrowserAuthenticator } from './browser-authenticator';
import { BrowserKeys } from './browser-keys';
import { BrowserKeysRepository } from './browser-keys.repository';

export interface BrowserAuthOptions {
  /** The service's schema (and DataSource name), which holds `public_keys` and `signing_keys` (`browserKeysMigration`). */
  readonly schema: string;
  /** The consumer group feeding this service's browser-key read model. */
  readonly groupId: string;
}

/**
 * The feed of the read model for one service's group: `notify.credentials.changed.v1`,
 * one group per service (its replicas share the table). A controller class per group,
 * built when the module is (`@ConsumerOf` takes its group when the class is declared).
 */
function browserKeysFeedOf(groupId: string): Type {
  @Controller()
  class BrowserKeysFeed {
    constructor(private readonly browserKeys: BrowserKeys) {}

    @ConsumerOf({ groupId, topics: [TOPICS.credentialsChanged.name], messages: { type: CREDENTIALS_CHANGED_TYPE, parsePayload: parseCredentialsChanged } })
    async apply(@Payload() change: CredentialsChanged): Promise<void> {
      await this.browserKeys.apply(change);
    }
  }
  return BrowserKeysFeed;
}

/**
 * Browser credentials for a service (public key and user token): its browser-key read
 * model, the feed that keeps it current (a `@ConsumerOf` controller of the module), and `BrowserAuthenticator` for the guards of
 * the routes it opens to browsers. Import it after the service's ServiceDatabaseModule.
 */
@Module({})
export class BrowserAuthModule {
  static forService(options: BrowserAuthOptions): DynamicModule {
    return {
      module: BrowserAuthModule,
      controllers: [browserKeysFeedOf(options.groupId)],
      providers: [
        // Also keeps two services' instances of this module apart in one process (embedded mode).
        { provide: 'BROWSER_AUTH_GROUP', useValue: options.groupId },
        BrowserKeysRepository.forSchema(options.schema),
        {
          provide: BrowserKeys,
          inject: [BrowserKeysRepository, HERALD_LOGGER],
          useFactory: (keys: BrowserKeysRepository, logger: HeraldLogger) => new BrowserKeys(keys, options.schema, logger),
        },
        BrowserAuthenticator,
      ],
      exports: [BrowserKeys, BrowserAuthenticator],
    };
  }
}
