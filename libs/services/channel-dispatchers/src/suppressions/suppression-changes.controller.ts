import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { IncomingMessage } from '@herald/bus';
import { SUPPRESSION_CHANGED_TYPE, SuppressionChanged, TOPICS, parseEnvelope, parseSuppressionChanged, readsSchemaVersion } from '@herald/contracts';
import { ConsumerOf } from '@herald/runtime';
import { SuppressionList } from './suppression-list';

const SUPPRESSION_CHANGES = {
  type: SUPPRESSION_CHANGED_TYPE,
  parsePayload: parseSuppressionChanged,
};

/**
 * `notify.suppression.changed.v1` into the dispatchers' list (see SuppressionList): the
 * shared group applies every change, and every replica also reads every change itself
 * (a group of its own, from the latest offset) to drop its cached list at once.
 */
@Controller()
export class SuppressionChangesController {
  constructor(private readonly list: SuppressionList) {}

  @ConsumerOf({ groupId: 'herald.dispatch.suppressions', topics: [TOPICS.suppressionChanged.name], messages: SUPPRESSION_CHANGES })
  async apply(@Payload() change: SuppressionChanged): Promise<void> {
    await this.list.apply(change);
  }

  @ConsumerOf({ groupId: 'herald.dispatch.suppressions', topics: [TOPICS.suppressionChanged.name], groupPerReplica: true })
  async seeAtOnce(message: IncomingMessage): Promise<void> {
    // Only to make the change seen here at once: what does not parse is the shared group's to dead-letter.
    const envelope = parseEnvelope(message.value);
    if (!envelope.ok || envelope.value.type !== SUPPRESSION_CHANGED_TYPE || !readsSchemaVersion(envelope.value)) return;
    const change = parseSuppressionChanged(envelope.value.payload);
    // Applied (idempotent, as the shared group applies it) before the cache is dropped, so the next read cannot cache the list as it was.
    if (change.ok) await this.list.apply(change.value);
  }
}
