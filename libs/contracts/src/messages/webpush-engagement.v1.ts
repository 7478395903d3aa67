import { Type } from '@sinclair/typebox';
import { ParseResult } from '../envelope';
import { Contract, NonEmptyString, OptionalString, messageSchemas } from './message-schemas';

/**
 * `notify.webpush.engagement.v1`, keyed `workspace:delivery_id`: what a browser's service
 * worker reported of a web push message (SuprSend's `$notification_delivered` and
 * `$notification_clicked` events on `POST /v2/event`, authenticated by the public key
 * alone, as the service worker has no user token). ingest-api publishes it; the engine
 * looks the delivery up in its message log (a web push message of that workspace, or
 * nothing happens) and records the outcome as any other.
 */
export const WEBPUSH_ENGAGEMENT_TYPE = 'webpush.engagement';
export const WEBPUSH_ENGAGEMENT_VERSION = 1;

export const WEBPUSH_ENGAGEMENT_STATUSES = ['delivered', 'clicked'] as const;
export type WebpushEngagementStatus = (typeof WEBPUSH_ENGAGEMENT_STATUSES)[number];

export const WebpushEngagementMessage = Type.Object({
  workspace_slug: NonEmptyString(),
  /** The push payload's `data.notification_id`: the message log's `message_id`. */
  delivery_id: NonEmptyString(),
  status: Type.Unsafe<WebpushEngagementStatus>({ enum: [...WEBPUSH_ENGAGEMENT_STATUSES] }),
  /** The button the user clicked (the notification's action), when not the notification itself. */
  action: OptionalString(),
  at: NonEmptyString(),
});
export type WebpushEngagement = Contract<typeof WebpushEngagementMessage>;

const webpushEngagementParser = messageSchemas.parser(WebpushEngagementMessage, 'payload');

export function parseWebpushEngagement(payload: unknown): ParseResult<WebpushEngagement> {
  return webpushEngagementParser.parse(payload);
}
