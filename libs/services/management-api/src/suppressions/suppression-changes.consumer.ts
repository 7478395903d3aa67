import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { SUPPRESSION_CHANGED_TYPE, SuppressionChanged, TOPICS, parseSuppressionChanged } from '@herald/contracts';
import { ConsumerOf } from '@herald/runtime';
import { SuppressionRepository } from './suppression.repository';

/**
 * Keeps management's copy of the suppression lists from `notify.suppression.changed.v1`:
 * the hard bounces and complaints the dispatchers record (so the API lists them), and the
 * API's own changes coming back, applied again in topic order.
 */
@Controller()
export class SuppressionChangesConsumer {
  constructor(private readonly suppressions: SuppressionRepository) {}

  @ConsumerOf({ groupId: 'herald.management.suppressions', topics: [TOPICS.suppressionChanged.name], messages: { type: SUPPRESSION_CHANGED_TYPE, parsePayload: parseSuppressionChanged } })
  async apply(@Payload() change: SuppressionChanged): Promise<void> {
    await this.suppressions.apply(change);
  }
}
