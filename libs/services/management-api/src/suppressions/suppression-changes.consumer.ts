import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SUPPRESSION_CHANGED_TYPE, TOPICS, parseSuppressionChanged } from '@herald/contracts';
import { ConsumerRegistry } from '@herald/runtime';
import { SuppressionRepository } from './suppression.repository';

/**
 * Keeps management's copy of the suppression lists from `notify.suppression.changed.v1`:
 * the hard bounces and complaints the dispatchers record (so the API lists them), and the
 * API's own changes coming back, applied again in topic order.
 */
@Injectable()
export class SuppressionChangesConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly consumers: ConsumerRegistry,
    private readonly suppressions: SuppressionRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.suppressionChanged.name], {
      groupId: 'herald.management.suppressions',
      type: SUPPRESSION_CHANGED_TYPE,
      parsePayload: parseSuppressionChanged,
      handle: (change) => this.suppressions.apply(change),
    });
  }
}
