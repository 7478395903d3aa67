import { Controller } from '@nestjs/common';
import { IncomingMessage } from '@herald/bus';
import { TOPICS } from '@herald/contracts';
import { ConsumerOf } from '@herald/runtime';
import { InboxStreams } from './inbox-streams';

/**
 * The reader that feeds this replica's inbox streams: every replica reads all of
 * notify.inbox.updated.v1 (a consumer group of its own, from the latest offset), so a
 * new inbox row reaches the stream on whichever replica holds it; in the embedded mode
 * the same reader runs on the in-process bus.
 */
@Controller()
export class InboxUpdatesController {
  constructor(private readonly streams: InboxStreams) {}

  // A partition's batch at a time, one commit for it.
  @ConsumerOf({ groupId: 'herald.dispatch.inbox-streams', topics: [TOPICS.inboxUpdated.name], groupPerReplica: true, batch: true })
  async read(messages: readonly IncomingMessage[]): Promise<void> {
    for (const message of messages) this.streams.read(message);
  }
}
