import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { CHANNELS, DELIVERY_REQUESTED_TYPE, DeliveryRequested, Envelope, HeraldError, deliveryTopic, parseDeliveryRequested } from '@herald/contracts';
import { IncomingMessage } from '@herald/bus';
import { ConsumerRegistry, HERALD_LOGGER, HeraldLogger } from '@herald/runtime';
import { DeliveryLedger } from './delivery-ledger';
import { Dispatcher } from './dispatcher';
import { RetryPoller } from './retry-poller';

/**
 * One consumer group per channel (`herald.dispatch.<channel>`), so each channel scales
 * and lags on its own. The first attempt runs inline; retries are scheduled in the
 * ledger and run by the retry poller, so a failing vendor never holds a partition.
 */
@Injectable()
export class DeliveryConsumers implements OnApplicationBootstrap {
  constructor(
    private readonly consumers: ConsumerRegistry,
    private readonly ledger: DeliveryLedger,
    private readonly dispatcher: Dispatcher,
    private readonly poller: RetryPoller,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
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

  private async handle(channel: string, command: DeliveryRequested, envelope: Envelope<DeliveryRequested>, message: IncomingMessage): Promise<void> {
    if (command.channel !== channel) {
      throw HeraldError.validation([{ path: 'payload.channel', message: `must be ${channel} on ${message.topic}` }]);
    }
    const claimed = await this.ledger.claim(command, envelope.workspace_id, message.key);
    if (claimed !== null) return this.dispatcher.attempt(claimed);
    // Claimed before. Still in flight under a lease that ran out or an owner that is gone
    // (this is the redelivery of a command a dispatcher died on): resolve it now.
    const found = await this.ledger.takeOver(command.delivery_id);
    if (found.kind === 'taken') {
      this.logger.info('delivery claim of a dead dispatcher resumed on redelivery', { delivery_id: command.delivery_id });
      return this.dispatcher.attempt(found.delivery, true);
    }
    // Sent, failed, scheduled for retry, or in flight under a live owner. Never sent twice;
    // should that owner die, the sweep resolves the claim once its lease runs out.
    if (found.kind === 'held') this.poller.wakeIn(found.leaseLeftMs + 50);
    this.logger.info('delivery command already claimed; acknowledged without sending', { delivery_id: command.delivery_id });
  }
}
