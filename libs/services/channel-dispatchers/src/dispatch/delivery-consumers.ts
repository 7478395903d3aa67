import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { CHANNELS, DELIVERY_REQUESTED_TYPE, DeliveryRequested, HeraldError, deliveryTopic, parseDeliveryRequested } from '@herald/contracts';
import { ConsumerRegistry, ParsedMessage } from '@herald/runtime';
import { DispatchHost } from './dispatch-host';

/**
 * One consumer group per channel (`herald.dispatch.<channel>`), so each channel scales
 * and lags on its own, consumed a partition's batch at a time. A command counts as consumed once it is claimed in the ledger;
 * the host runs its first attempt, and retries are scheduled in the ledger and run by
 * the retry poller, so a failing vendor never holds a partition.
 */
@Injectable()
export class DeliveryConsumers implements OnApplicationBootstrap {
  constructor(
    private readonly consumers: ConsumerRegistry,
    private readonly host: DispatchHost,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const channel of CHANNELS) {
      await this.consumers.consumeBatches([deliveryTopic(channel).name], {
        groupId: `herald.dispatch.${channel}`,
        type: DELIVERY_REQUESTED_TYPE,
        parsePayload: parseDeliveryRequested,
        handleBatch: (messages) => this.handleBatch(channel, messages),
      });
    }
  }

  /**
   * A partition's batch, claimed together (one ledger statement). A command on the wrong
   * channel's topic fails the batch; the registry then splits it, and on its own that
   * command is dead-lettered while the rest are claimed.
   */
  private async handleBatch(channel: string, messages: readonly ParsedMessage<DeliveryRequested>[]): Promise<void> {
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
