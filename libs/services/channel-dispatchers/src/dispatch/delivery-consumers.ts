import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { CHANNELS, DELIVERY_REQUESTED_TYPE, DeliveryRequested, Envelope, HeraldError, deliveryTopic, parseDeliveryRequested } from '@herald/contracts';
import { IncomingMessage } from '@herald/bus';
import { ConsumerRegistry } from '@herald/runtime';
import { DispatchHost } from './dispatch-host';

/**
 * One consumer group per channel (`herald.dispatch.<channel>`), so each channel scales
 * and lags on its own. A command counts as consumed once it is claimed in the ledger;
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
      await this.consumers.consume([deliveryTopic(channel).name], {
        groupId: `herald.dispatch.${channel}`,
        type: DELIVERY_REQUESTED_TYPE,
        parsePayload: parseDeliveryRequested,
        handle: (command, envelope, message) => this.handle(channel, command, envelope, message),
      });
    }
  }

  /** One message, handed to the host as a batch of one (see DispatchHost). */
  private async handle(channel: string, command: DeliveryRequested, envelope: Envelope<DeliveryRequested>, message: IncomingMessage): Promise<void> {
    if (command.channel !== channel) {
      throw HeraldError.validation([{ path: 'payload.channel', message: `must be ${channel} on ${message.topic}` }]);
    }
    return this.host.handleCommands(channel, [{ command, workspaceId: envelope.workspace_id, messageKey: message.key }]);
  }
}
