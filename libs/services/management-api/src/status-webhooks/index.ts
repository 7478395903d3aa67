import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { CreateStatusWebhooks1763701500000 } from './migrations/1763701500000-create-status-webhooks';
import { StatusEventsConsumer } from './status-events.consumer';
import { DEFAULT_STATUS_WEBHOOK_OPTIONS, STATUS_WEBHOOK_OPTIONS, StatusWebhookOptions } from './status-webhook-options';
import { WebhookAttemptEntity, WebhookDeliveryEntity, WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookEndpointEntity, WebhookEndpointRepository } from './webhook-endpoint.repository';
import { WebhookEndpointsController } from './webhook-endpoints.controller';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookSender } from './webhook-sender';

export { DEFAULT_STATUS_WEBHOOK_OPTIONS, StatusWebhookOptions } from './status-webhook-options';

/** Status webhooks and `notify.status.v1`: endpoints, the status events, the delivery queue and its sender. */
export const STATUS_WEBHOOK_CONTROLLERS: Type[] = [WebhookEndpointsController, StatusEventsConsumer];
export function statusWebhookProviders(options: Partial<StatusWebhookOptions> = {}): Provider[] {
  return [
    WebhookEndpointRepository,
    WebhookDeliveryRepository,
    WebhookSecrets,
    WebhookSender,
    { provide: STATUS_WEBHOOK_OPTIONS, useValue: { ...DEFAULT_STATUS_WEBHOOK_OPTIONS, ...options } },
  ];
}
export const STATUS_WEBHOOK_ENTITIES = [WebhookEndpointEntity, WebhookDeliveryEntity, WebhookAttemptEntity];
export const STATUS_WEBHOOK_MIGRATIONS: MigrationClass[] = [CreateStatusWebhooks1763701500000];
