import { Controller } from '@nestjs/common';
import { DELIVERY_OUTCOME_TYPE, DeliveryOutcome, TOPICS, messageStatusOf, parseDeliveryOutcome } from '@herald/contracts';
import { ConsumerOf, ParsedMessage } from '@herald/runtime';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookSender } from './webhook-sender';

/**
 * Turns every delivery outcome (whichever status the outcome contract carries: the
 * dispatchers' own, the inbox's engagement, a vendor's receipt) into a status event,
 * recorded once, announced on `notify.status.v1` and queued for the matching webhook
 * endpoints. One consumer group shared by the replicas, a partition's batch at a time.
 */
@Controller()
export class StatusEventsConsumer {
  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly sender: WebhookSender,
  ) {}

  @ConsumerOf({
    groupId: 'herald.management.status',
    topics: [TOPICS.deliveryOutcome.name],
    messages: { type: DELIVERY_OUTCOME_TYPE, parsePayload: parseDeliveryOutcome },
    batch: true,
  })
  async record(outcomes: readonly ParsedMessage<DeliveryOutcome>[]): Promise<void> {
    const { queued } = await this.deliveries.recordStatusEvents(
      outcomes.map(({ payload, envelope, message }) => ({
        event: messageStatusOf(payload, envelope.workspace_id, envelope.message_id),
        workspaceId: envelope.workspace_id,
        key: message.key,
      })),
    );
    if (queued > 0) this.sender.wake();
  }
}
