import { MessageBus } from '@herald/bus';
import { Envelope, TOPICS, credentialsAppliedMessage } from '@herald/contracts';
import { HeraldLogger } from '../../logging/logger';
import { Clock } from '../tokens';

/**
 * Tells management-api that `service`'s credentials read model applied an announcement
 * (`notify.credentials.applied.v1`), so an API key's create (or delete) answers once
 * the key works (or is refused) here. Not awaited by the feed: a lost acknowledgement
 * only makes the management request answer at its timeout.
 */
export function acknowledgeCredentials(bus: MessageBus, clock: Clock, logger: HeraldLogger, service: string, envelope: Pick<Envelope<unknown>, 'workspace_id' | 'message_id'>): void {
  const message = credentialsAppliedMessage(envelope.workspace_id, { service, message_ids: [envelope.message_id] }, clock.now());
  bus.publish(TOPICS.credentialsApplied.name, [message]).catch((error: Error) =>
    logger.warn('could not acknowledge an applied credentials change', { service, err: error.message }),
  );
}
