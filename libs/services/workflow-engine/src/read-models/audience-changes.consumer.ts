import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { AUDIENCE_CHANGED_TYPE, AudienceChanged, Envelope, TOPICS, parseAudienceChanged } from '@herald/contracts';
import { BusMessageContext, ConsumerOf } from '@herald/runtime';
import { LiveAudience } from './live-audience';

/** Keeps LiveAudience from preference-service's announcements (one consumer group shared by the replicas). */
@Controller()
export class AudienceChangesConsumer {
  constructor(private readonly audience: LiveAudience) {}

  @ConsumerOf({ groupId: 'herald.engine.audience', topics: [TOPICS.audienceChanged.name], messages: { type: AUDIENCE_CHANGED_TYPE, parsePayload: parseAudienceChanged } })
  async apply(@Payload() change: AudienceChanged, @Ctx() context: BusMessageContext<Envelope<AudienceChanged>>): Promise<void> {
    await this.audience.applyAnnounced(context.envelope.workspace_id, context.envelope.message_id, change);
  }
}
