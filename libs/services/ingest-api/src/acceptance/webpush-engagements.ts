import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { TOPICS, WEBPUSH_ENGAGEMENT_TYPE, WEBPUSH_ENGAGEMENT_VERSION, WebpushEngagement, envelopeMessage, envelopeOf } from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { AuthenticatedWorkspace, CLOCK, Clock, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS, refuseInfrastructureFailure } from '@herald/runtime';
import type { ServiceWorkerEvent } from '../validation';

/**
 * A service worker's report of a web push message, published for the engine
 * (`notify.webpush.engagement.v1`), which owns the message log and knows whether the id
 * is one of this workspace's web push messages. Accepted once the bus has it, as every
 * other request; a dismissal is published nowhere.
 */
@Injectable()
export class WebpushEngagements {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {}

  async report(workspace: AuthenticatedWorkspace, event: ServiceWorkerEvent): Promise<void> {
    if (event.status === 'dismissed') return;
    const messageId = randomUUID();
    const now = this.clock.now();
    const payload: WebpushEngagement = {
      workspace_slug: workspace.slug,
      delivery_id: event.notificationId,
      status: event.status,
      ...(event.action === undefined ? {} : { action: event.action }),
      at: now.toISOString(),
    };
    try {
      await this.bus.publish(TOPICS.webpushEngagement.name, [
        envelopeMessage(`${workspace.id}:${event.notificationId}`, envelopeOf(WEBPUSH_ENGAGEMENT_TYPE, WEBPUSH_ENGAGEMENT_VERSION, messageId, workspace.id, now, payload)),
      ]);
    } catch (error) {
      throw refuseInfrastructureFailure(this.logger, 'publishing to the bus', error, 'message bus');
    }
  }
}
