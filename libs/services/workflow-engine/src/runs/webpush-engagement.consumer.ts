import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { DeliveryOutcome, Envelope, TOPICS, WEBPUSH_ENGAGEMENT_TYPE, WebpushEngagement, parseWebpushEngagement } from '@herald/contracts';
import { BusMessageContext, ConsumerOf } from '@herald/runtime';
import { RunHost } from './run-host';
import { MessageLogRepository, MessageStanding } from '../http/message-log.repository';

/** A message's statuses only move forward: a late `delivered` after a click changes nothing. */
const RANK: Readonly<Record<string, number>> = { delivered: 1, seen: 2, clicked: 3 };

/**
 * What a browser's service worker reported of a web push message
 * (`notify.webpush.engagement.v1`), recorded as that message's outcome, exactly as a
 * vendor's status callback would: the message log, status webhooks and any smart-routing
 * wait follow. A report naming no web push message of the workspace is dropped: the
 * service worker authenticates with the public key alone, so the id must be one Herald
 * sent (a message id is a random UUID, known to the browser it was pushed to).
 */
@Controller()
export class WebpushEngagementConsumer {
  constructor(
    private readonly messages: MessageLogRepository,
    private readonly runs: RunHost,
  ) {}

  @ConsumerOf({ groupId: 'herald.engine.webpush_engagements', topics: [TOPICS.webpushEngagement.name], messages: { type: WEBPUSH_ENGAGEMENT_TYPE, parsePayload: parseWebpushEngagement } })
  async read(@Payload() report: WebpushEngagement, @Ctx() context: BusMessageContext<Envelope<WebpushEngagement>>): Promise<void> {
    await this.record(context.envelope.workspace_id, report);
  }

  async record(workspaceId: string, report: WebpushEngagement): Promise<void> {
    // Only a web push message of this workspace: the report's id is the browser's word alone.
    const [message] = (await this.messages.standings(workspaceId, [report.delivery_id])).filter((standing) => standing.channel === 'webpush');
    const outcome = message === undefined ? null : engagementOutcome(message, report);
    if (outcome !== null) await this.runs.deliveryOutcome(workspaceId, outcome);
  }
}

/** The outcome a report adds to its message, or null when the message is already that far. Pure. */
export function engagementOutcome(message: MessageStanding, report: WebpushEngagement): DeliveryOutcome | null {
  if ((RANK[message.status] ?? 0) >= RANK[report.status]) return null;
  return {
    delivery_id: message.deliveryId,
    run_id: message.runId,
    message_id: message.messageId,
    workspace_slug: report.workspace_slug,
    channel: 'webpush',
    status: report.status,
    vendor: 'webpush/vapid',
    ...(report.action === undefined ? {} : { vendor_event: `notificationclick:${report.action}` }),
    at: report.at,
  };
}
