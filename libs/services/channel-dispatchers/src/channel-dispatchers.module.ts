import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { BrowserAuthModule, HERALD_CONFIG, HeraldConfig, SecretBox, ServiceDatabaseModule, ServiceDefinition } from '@herald/runtime';
import { AttachmentLoader } from './attachments/attachment-loader';
import { ClaimLeases } from './dispatch/claim-leases';
import { DeliveryConsumers } from './dispatch/delivery-consumers';
import { DeliveryClaims } from './dispatch/delivery-claims';
import { DeliveryRepository } from './dispatch/delivery.repository';
import { DEFAULT_DISPATCH_OPTIONS, DISPATCH_OPTIONS, DispatchOptions } from './dispatch/dispatch-options';
import { DispatchHost } from './dispatch/dispatch-host';
import { DispatchMetrics } from './dispatch/dispatch-metrics';
import { DispatchOutboxRelay } from './dispatch/dispatch-outbox-relay';
import { DispatchOutboxRepository } from './dispatch/dispatch-outbox.repository';
import { DispatchOwner } from './dispatch/dispatch-owner';
import { DispatchOwnerLockRepository } from './dispatch/dispatch-owner-lock.repository';
import { Dispatcher, VENDOR_REGISTRY } from './dispatch/dispatcher';
import { RetryPoller } from './dispatch/retry-poller';
import { DeliveryRetryController } from './http/delivery-retry.controller';
import { EngagementRoutes } from './engagement/engagement-routes';
import { EngagementTracking } from './engagement/engagement-tracking';
import { EngagementController } from './http/engagement.controller';
import { FeedAuthGuard } from './http/feed-auth.guard';
import { FeedController, FeedPreflightController } from './http/feed.controller';
import { FeedSockets } from './http/feed-sockets';
import { InboxAuthGuard } from './http/inbox-auth.guard';
import { InboxController } from './http/inbox.controller';
import { InboxPreflightController } from './http/inbox-preflight.controller';
import { JsInboxAuthenticator, JsInboxUserGuard, JsInboxWorkspaceGuard } from './http/js-inbox-auth';
import { JsInboxController, JsInboxPreflightController } from './http/js-inbox.controller';
import { JsInboxSockets } from './http/js-inbox-sockets';
import { FormBodyParser, VendorCallbacksController } from './http/vendor-callbacks.controller';
import { FeedRepository } from './inbox/feed.repository';
import { InboxRepository } from './inbox/inbox.repository';
import { InboxWrites } from './inbox/inbox-writes';
import { DEFAULT_STREAM_LIMITS, INBOX_STREAM_LIMITS, InboxStreams, StreamLimits } from './inbox/inbox-streams';
import { InboxUpdatesController } from './inbox/inbox-updates.controller';
import { dispatchOpenApi } from './openapi/dispatch-openapi';
import { DISPATCH_MIGRATIONS } from './persistence/migrations';
import { ApiKeyRepository } from './read-models/api-key.repository';
import { InboxApiKeys } from './read-models/inbox-api-keys';
import { LiveTranslations } from './read-models/live-translations';
import { ReadModelConsumers } from './read-models/read-model-consumers.controller';
import { TranslationRepository } from './read-models/translation.repository';
import { DISPATCH_SECRET_BOX } from './read-models/dispatch-secret-box';
import { WorkspaceKeyRepository } from './read-models/workspace-key.repository';
import { WorkspaceKeySecrets } from './read-models/workspace-key-secrets';
import { VendorRepository } from './read-models/vendor.repository';
import { WorkspaceVendors } from './read-models/workspace-vendors';
import { SuppressionChangesController } from './suppressions/suppression-changes.controller';
import { GuardedHttp } from './vendors/http/guarded-http';
import { HTTP_PORT, HttpPort } from './vendors/http/http.port';
import { AddressGuard } from './vendors/net/address-guard';
import { StatusCallbackUrls } from './vendors/status-callback-urls';
import { VendorRegistry } from './vendors/vendor-registry';
import { VendorTestController } from './vendor-test/vendor-test.controller';
import { VendorTester } from './vendor-test/vendor-tester';
import { SuppressionList } from './suppressions/suppression-list';
import { SuppressionRepository } from './suppressions/suppression.repository';
import { DISPATCH_ENTITIES } from './persistence/entities';
import { HttpsSnsClient, SNS_CLIENT, SnsClient } from './vendor-callbacks/sns-client';
import { VendorCallbackRepository } from './vendor-callbacks/vendor-callback.repository';
import { VendorCallbacks } from './vendor-callbacks/vendor-callbacks';

/** What a test may put in place of the network for vendor callbacks. */
export interface VendorCallbackOptions {
  readonly snsClient?: SnsClient;
}

/** Delivery commands to vendors: rendering, retries, fallback, delivery status, the inbox. */
@Module({})
export class ChannelDispatchersModule implements OnApplicationShutdown {
  constructor(@Inject(VENDOR_REGISTRY) private readonly registry: VendorRegistry) {}

  static register(options: Partial<DispatchOptions> = {}, streamLimits: Partial<StreamLimits> = {}, callbacks: VendorCallbackOptions = {}): DynamicModule {
    return {
      module: ChannelDispatchersModule,
      imports: [
        ServiceDatabaseModule.forService({ service: 'channel-dispatchers', schema: 'dispatch', migrations: DISPATCH_MIGRATIONS, entities: DISPATCH_ENTITIES }),
        BrowserAuthModule.forService({ schema: 'dispatch', groupId: 'herald.dispatch.browser-keys' }),
      ],
      controllers: [InboxController, InboxPreflightController, FeedController, FeedPreflightController, JsInboxController, JsInboxPreflightController, VendorCallbacksController, EngagementController, DeliveryRetryController, VendorTestController, SuppressionChangesController, InboxUpdatesController, ReadModelConsumers, DeliveryConsumers],
      providers: [
        { provide: DISPATCH_OPTIONS, useValue: { ...DEFAULT_DISPATCH_OPTIONS, ...options } },
        // Vendor calls obey the outbound address rule: private addresses only where HERALD_OUTBOUND_ALLOW lists them.
        { provide: HTTP_PORT, inject: [HERALD_CONFIG], useFactory: (config: HeraldConfig): HttpPort => new GuardedHttp(config.outboundAllow) },
        {
          provide: VENDOR_REGISTRY,
          inject: [HTTP_PORT, HERALD_CONFIG, InboxWrites],
          useFactory: (http: HttpPort, config: HeraldConfig, inbox: InboxWrites) =>
            new VendorRegistry(http, new AddressGuard(config.outboundAllow), inbox, new StatusCallbackUrls(config.publicUrl)),
        },
        {
          provide: DISPATCH_SECRET_BOX,
          inject: [HERALD_CONFIG],
          useFactory: (config: HeraldConfig): SecretBox => {
            // Vendor credentials arrive sealed by management-api; the same key opens them.
            if (!config.secretsKey) throw new Error('HERALD_SECRETS_KEY is required by channel-dispatchers (it opens vendor credentials)');
            return new SecretBox(config.secretsKey);
          },
        },
        { provide: SNS_CLIENT, useValue: callbacks.snsClient ?? new HttpsSnsClient() },
        FormBodyParser,
        SuppressionRepository,
        SuppressionList,
        VendorCallbackRepository,
        VendorCallbacks,
        EngagementTracking,
        EngagementRoutes,
        VendorTester,
        InboxRepository,
        InboxWrites,
        FeedRepository,
        FeedAuthGuard,
        VendorRepository,
        WorkspaceVendors,
        ApiKeyRepository,
        InboxApiKeys,
        TranslationRepository,
        LiveTranslations,
        InboxAuthGuard,
        { provide: INBOX_STREAM_LIMITS, useValue: { ...DEFAULT_STREAM_LIMITS, ...streamLimits } },
        InboxStreams,
        FeedSockets,
        WorkspaceKeyRepository,
        WorkspaceKeySecrets,
        JsInboxAuthenticator,
        JsInboxUserGuard,
        JsInboxWorkspaceGuard,
        JsInboxSockets,
        DispatchOwnerLockRepository,
        DispatchOwner,
        DispatchOutboxRepository,
        DeliveryRepository,
        DeliveryClaims,
        ClaimLeases,
        AttachmentLoader,
        DispatchMetrics,
        Dispatcher,
        DispatchHost,
        RetryPoller,
        DispatchOutboxRelay,
      ],
    };
  }

  /**
   * After every module is destroyed: the consumers (in the global platform module) stop
   * last and wait for their in-flight attempts, whose vendor calls must not be cut off
   * (a call that reached the vendor, reported failed, would be retried: sent twice).
   */
  onApplicationShutdown(): void {
    this.registry.close();
  }
}

export const channelDispatchers: ServiceDefinition = {
  name: 'channel-dispatchers',
  // The inbox API is part of {base_url}.
  api: 'public',
  module: () => ChannelDispatchersModule.register(),
  openApi: dispatchOpenApi,
};
