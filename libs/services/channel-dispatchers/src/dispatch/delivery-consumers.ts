import { Controller } from '@nestjs/common';
import { Channel, DELIVERY_REQUESTED_TYPE, DeliveryRequested, HeraldError, deliveryTopic, parseDeliveryRequested } from '@herald/contracts';
import { ConsumerOf, EnvelopeBatchConsumerDeclaration, ParsedMessage } from '@herald/runtime';
import { DispatchHost } from './dispatch-host';

/** The delivery requests of one channel: its own consumer group, a partition's batch at a time. */
export function deliveryRequestsOf(channel: Channel): EnvelopeBatchConsumerDeclaration<DeliveryRequested> {
  return {
    groupId: `herald.dispatch.${channel}`,
    topics: [deliveryTopic(channel).name],
    messages: { type: DELIVERY_REQUESTED_TYPE, parsePayload: parseDeliveryRequested },
    batch: true,
  };
}

type DeliveryBatch = readonly ParsedMessage<DeliveryRequested>[];

/**
 * One consumer group per channel (`herald.dispatch.<channel>`), so each channel scales
 * and lags on its own, consumed a partition's batch at a time. A command counts as consumed once it is claimed in the ledger;
 * the host runs its first attempt, and retries are scheduled in the ledger and run by
 * the retry poller, so a failing vendor never holds a partition. One handler per
 * channel of `CHANNELS` (a spec checks that none is missing).
 */
@Controller()
export class DeliveryConsumers {
  constructor(private readonly host: DispatchHost) {}

  @ConsumerOf(deliveryRequestsOf('email'))
  email(batch: DeliveryBatch): Promise<void> {
    return this.handleBatch('email', batch);
  }

  @ConsumerOf(deliveryRequestsOf('sms'))
  sms(batch: DeliveryBatch): Promise<void> {
    return this.handleBatch('sms', batch);
  }

  @ConsumerOf(deliveryRequestsOf('inbox'))
  inbox(batch: DeliveryBatch): Promise<void> {
    return this.handleBatch('inbox', batch);
  }

  @ConsumerOf(deliveryRequestsOf('androidpush'))
  androidpush(batch: DeliveryBatch): Promise<void> {
    return this.handleBatch('androidpush', batch);
  }

  @ConsumerOf(deliveryRequestsOf('iospush'))
  iospush(batch: DeliveryBatch): Promise<void> {
    return this.handleBatch('iospush', batch);
  }

  @ConsumerOf(deliveryRequestsOf('slack'))
  slack(batch: DeliveryBatch): Promise<void> {
    return this.handleBatch('slack', batch);
  }

  @ConsumerOf(deliveryRequestsOf('ms_teams'))
  ms_teams(batch: DeliveryBatch): Promise<void> {
    return this.handleBatch('ms_teams', batch);
  }

  @ConsumerOf(deliveryRequestsOf('webpush'))
  webpush(batch: DeliveryBatch): Promise<void> {
    return this.handleBatch('webpush', batch);
  }

  @ConsumerOf(deliveryRequestsOf('whatsapp'))
  whatsapp(batch: DeliveryBatch): Promise<void> {
    return this.handleBatch('whatsapp', batch);
  }

  /**
   * A partition's batch, claimed together (one ledger statement). A command on the wrong
   * channel's topic fails the batch; the registry then splits it, and on its own that
   * command is dead-lettered while the rest are claimed.
   */
  private async handleBatch(channel: Channel, messages: DeliveryBatch): Promise<void> {
    const misrouted = messages.find(({ payload }) => payload.channel !== channel);
    if (misrouted) {
      throw HeraldError.validation([{ path: 'payload.channel', message: `must be ${channel} on ${misrouted.message.topic}` }]);
    }
    return this.host.handleCommands(
      channel,
      messages.map(({ payload, envelope, message }) => ({ command: payload, workspaceId: envelope.workspace_id, messageKey: message.key })),
    );
  }
}
