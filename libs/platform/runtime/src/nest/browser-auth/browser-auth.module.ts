import { DynamicModule, Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { CREDENTIALS_CHANGED_TYPE, TOPICS, parseCredentialsChanged } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { ConsumerRegistry } from '../consumer-registry';
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

/** Feeds the read model from `notify.credentials.changed.v1`, one group per service (its replicas share the table). */
@Injectable()
class BrowserKeysFeed implements OnApplicationBootstrap {
  constructor(
    private readonly consumers: ConsumerRegistry,
    private readonly browserKeys: BrowserKeys,
    @Inject('BROWSER_AUTH_GROUP') private readonly groupId: string,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.credentialsChanged.name], {
      groupId: this.groupId,
      type: CREDENTIALS_CHANGED_TYPE,
      parsePayload: parseCredentialsChanged,
      handle: (change) => this.browserKeys.apply(change),
    });
  }
}

/**
 * Browser credentials for a service (public key and user token): its browser-key read
 * model, the feed that keeps it current, and `BrowserAuthenticator` for the guards of
 * the routes it opens to browsers. Import it after the service's ServiceDatabaseModule.
 */
@Module({})
export class BrowserAuthModule {
  static forService(options: BrowserAuthOptions): DynamicModule {
    return {
      module: BrowserAuthModule,
      providers: [
        // Also keeps two services' instances of this module apart in one process (embedded mode).
        { provide: 'BROWSER_AUTH_GROUP', useValue: options.groupId },
        BrowserKeysRepository.forSchema(options.schema),
        {
          provide: BrowserKeys,
          inject: [BrowserKeysRepository, HERALD_LOGGER],
          useFactory: (keys: BrowserKeysRepository, logger: HeraldLogger) => new BrowserKeys(keys, options.schema, logger),
        },
        BrowserKeysFeed,
        BrowserAuthenticator,
      ],
      exports: [BrowserKeys, BrowserAuthenticator],
    };
  }
}
