import { Static, TSchema, Type } from '@sinclair/typebox';
import { CHANNELS, Channel, DeliveryStatus, FormattedString, MESSAGE_STATUSES, Nullable } from '@herald/contracts';
import { BoundedText, CheckedList } from '../http/settings-body-rules';
import { managementSchemas } from '../openapi/management-schemas';
import { MAX_RANGE_REPLAY } from './webhook-delivery.repository';

/**
 * The bodies of `webhook_endpoint` (docs/architecture.md, "Contracts"): the handlers'
 * `@ValidBody` validates them, status-webhooks-openapi.ts shows them. Rules between fields
 * (a patch sets one at least; a range's since before its until) stay in the handlers.
 */
const MAX_FILTER_ITEMS = 100;

/** Each field's rule, written once for the create and the patch bodies. */
const url = FormattedString('http_url', { maxLength: 2048, 'x-message': 'must be an http or https URL of at most 2048 characters', description: 'http or https URL the events are POSTed to' });
const description = BoundedText(0, 500);
const eventTypes = CheckedList<DeliveryStatus>('each_message_status', `A status: ${MESSAGE_STATUSES.join(', ')}`, 'status', {
  minItems: 1,
  description: 'The statuses sent to the endpoint',
});
/** Workflow slugs or category slugs: an empty or absent filter lets every value through. */
const slugs = (what: string) =>
  CheckedList('each_slug', 'A slug: a string of 1 to 128 characters', 'slug', { maxItems: MAX_FILTER_ITEMS, description: `Only these ${what} (empty: all)` });
const channels = CheckedList<Channel>('each_channel', `A channel: ${CHANNELS.join(', ')}`, 'channel', { description: 'Only these channels (empty: all)' });
const enabled = Type.Boolean({ description: 'false: nothing is queued for the endpoint or sent to it; true again sends what waited' });

const endpointFields = <T extends TSchema, E extends TSchema>(urlField: T, eventTypesField: E) => ({
  url: urlField,
  description: Nullable(description),
  event_types: eventTypesField,
  workflows: Nullable(slugs('workflow slugs')),
  channels: Nullable(channels),
  categories: Nullable(slugs('notification categories')),
  enabled: Nullable(enabled),
});
const object = { 'x-message': 'must be a JSON object' };

/** An endpoint: where (`url`), which statuses (`event_types`), and optional filters by workflow slug, channel and category. */
export const WebhookEndpointCreateSchema = managementSchemas.named('WebhookEndpointCreate', Type.Object(endpointFields(url, eventTypes), object));
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreateSchema>;

/** Any of the create fields; `enabled: false` disables the endpoint (nothing is queued for it or sent), `true` enables it again. */
export const WebhookEndpointPatchSchema = managementSchemas.named(
  'WebhookEndpointPatch',
  Type.Object(endpointFields(Nullable(url), Nullable(eventTypes)), { ...object, description: 'At least one field' }),
);
export type WebhookEndpointPatch = Static<typeof WebhookEndpointPatchSchema>;

/** A time range of an endpoint's deliveries to send again: [since, until); the handler reads the times. */
export const WebhookReplayRangeSchema = managementSchemas.named(
  'WebhookReplayRange',
  Type.Object(
    {
      since: Type.String({ description: 'ISO 8601 date and time' }),
      until: Type.String({ description: `ISO 8601 date and time, exclusive; the range may hold at most ${MAX_RANGE_REPLAY.toLocaleString('en-US')} deliveries` }),
    },
    object,
  ),
);
export type WebhookReplayRange = Static<typeof WebhookReplayRangeSchema>;

export const WEBHOOK_ENDPOINT_BODIES = {
  create: managementSchemas.parser(WebhookEndpointCreateSchema),
  patch: managementSchemas.parser(WebhookEndpointPatchSchema),
  replayRange: managementSchemas.parser(WebhookReplayRangeSchema),
} as const;
